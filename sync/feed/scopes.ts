/**
 * What a laptop asks the feed for. `--scope` values (repeatable, a union) become scope keys
 * (protocol/scope-keys.ts):
 *
 * - `mine`: events created by the user, patrols created or led by them (needs the user's id);
 * - `team:<subject group id>`: that group's events, patrols and subjects;
 * - `category:<event category>`: events of that category;
 * - `bbox:<west>,<south>,<east>,<north>`: events in the 1° cells covering the box;
 * - `window:<N>d`: events and patrols by event / start day, the last N days (N ≤ 90).
 *
 * Without `--scope`: open patrols, events and patrols of the last 30 days (by event time and
 * start day), every subject and every catalog the user may see. The catalogs (`cat:*`) are
 * always asked for: offline validation needs them. Day keys are computed for `now`, so the key
 * set changes when the date does (run-feed.ts decides what that costs).
 */
import { CATALOG_KEYS, cellKeys, dayKeys, isScopeKey, keys } from '../../protocol/scope-keys.js';
import { MAX_SCOPE_KEYS } from '../../protocol/sync.js';
import { failure } from '../errors.js';

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 90;
/** Cells a bbox may cover (each a key; the request holds at most MAX_SCOPE_KEYS). */
const MAX_CELLS = 200;

export type ScopeSpec = string;

const usage = (message: string, hint: string) => failure('usage', message, hint);
const SCOPE_HINT = 'use mine, team:<group id>, category:<category>, bbox:<west>,<south>,<east>,<north> or window:<N>d';

/** Checks `--scope` values (without the network): throws a usage failure naming the bad one. */
export function parseScopes(specs: readonly string[]): ScopeSpec[] {
  const out: string[] = [];
  for (const raw of specs) {
    const spec = raw.trim();
    if (spec.length === 0 || spec.length > 200) throw usage(`--scope "${raw.slice(0, 60)}" is empty or too long`, SCOPE_HINT);
    const [name, ...rest] = spec.split(':');
    const value = rest.join(':');
    if (spec === 'mine') out.push(spec);
    else if ((name === 'team' || name === 'category') && value.length > 0 && value.length <= 64 && !/\s/.test(value)) out.push(spec);
    else if (name === 'bbox') {
      bbox(value);
      out.push(spec);
    } else if (name === 'window') {
      windowDays(value);
      out.push(spec);
    } else throw usage(`unknown --scope "${spec.slice(0, 60)}"`, SCOPE_HINT);
  }
  return [...new Set(out)].sort();
}

function bbox(value: string): [number, number, number, number] {
  const parts = value.split(',').map((p) => Number(p.trim()));
  const [w, s, e, n] = parts as [number, number, number, number];
  if (parts.length !== 4 || parts.some((p) => !Number.isFinite(p)) || w < -180 || e > 180 || s < -90 || n > 90 || w > e || s > n) {
    throw usage(`--scope bbox:${value} is not west,south,east,north in degrees`, 'for example bbox:36.5,-1.5,37.2,-1.0 (west ≤ east, south ≤ north)');
  }
  return [w, s, e, n];
}

function windowDays(value: string): number {
  const match = /^(\d{1,3})d$/.exec(value);
  const days = match ? Number(match[1]) : NaN;
  if (!(days >= 1 && days <= MAX_WINDOW_DAYS)) throw usage(`--scope window:${value} is not a number of days`, `for example window:7d (1 to ${MAX_WINDOW_DAYS} days)`);
  return days;
}

/** The keys of the scopes at `now`, sorted; `userId` is needed only for `mine`. */
export function scopeKeys(specs: readonly ScopeSpec[], now: number, userId: string | null): string[] {
  const out = new Set<string>(['cat:*']);
  if (specs.length === 0) {
    out.add('pa:open');
    out.add('su:*');
    for (const key of dayKeys('ev:day', DEFAULT_WINDOW_DAYS, now)) out.add(key);
    for (const key of dayKeys('pa:day', DEFAULT_WINDOW_DAYS, now)) out.add(key);
  }
  for (const spec of specs) {
    const [name, ...rest] = spec.split(':');
    const value = rest.join(':');
    if (spec === 'mine') {
      if (!userId) throw failure('server', 'the server did not say who you are, which `--scope mine` needs', 'run `fieldops whoami`, or use another --scope');
      out.add(keys.eventBy(userId));
      out.add(keys.patrolBy(userId));
    } else if (name === 'team') {
      out.add(keys.eventTeam(value));
      out.add(keys.patrolTeam(value));
      out.add(keys.subjectGroup(value));
    } else if (name === 'category') out.add(keys.eventCategory(value));
    else if (name === 'bbox') {
      const cells = cellKeys(...bbox(value), MAX_CELLS);
      if (!cells) throw usage(`--scope bbox:${value} covers more than ${MAX_CELLS} one-degree cells`, 'use a smaller box, or several');
      for (const key of cells) out.add(key);
    } else if (name === 'window') {
      const days = windowDays(value);
      for (const key of dayKeys('ev:day', days, now)) out.add(key);
      for (const key of dayKeys('pa:day', days, now)) out.add(key);
    }
  }
  const list = [...out].sort();
  const bad = list.find((key) => !key.includes('*') && !isScopeKey(key));
  if (bad) throw usage(`--scope gives the key "${bad.slice(0, 80)}", which is too long or malformed`, SCOPE_HINT);
  if (list.length > MAX_SCOPE_KEYS) throw usage(`these scopes need ${list.length} keys; the server takes at most ${MAX_SCOPE_KEYS}`, 'use fewer or smaller scopes (a smaller bbox, a shorter window)');
  return list;
}

/** Keys a requested key set would cover for the catalogs (`cat:*` expands to all of them). */
export function catalogKeysOf(granted: readonly string[]): string[] {
  return CATALOG_KEYS.filter((key) => granted.includes(key));
}
