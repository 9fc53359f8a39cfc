/**
 * `breaking/removed-choice` and `breaking/narrowed-type` for one top-level field kept (same name)
 * from the current revision to the proposed one. A stored value is hurt when the current
 * revision accepts it and the proposed one does not (values that were already invalid are not
 * this change's doing). Counting, from the field's `FieldUsage`:
 * - top-level kinds the new `type` refuses: exactly `kinds[k]` events each;
 * - listed values: exactly their events for a scalar field; for a list (multi-select), events
 *   hold several elements, so the count is the largest single value's (a lower bound when more
 *   than one value is refused);
 * - values not listed (`values_complete` false): a string field newly limited to choices refuses
 *   every unlisted string when the list was not cut (only strings over 200 characters are then
 *   unlisted, and no choice is that long): `kinds.string` minus the listed strings, exactly.
 *   Otherwise `min`/`max`/`min_length`/`max_length` prove at least one refused value (lower
 *   bound 1), and any listed refusal becomes a lower bound.
 * - removed choice values are read from the list only: a value no listed entry holds is taken as
 *   held by no event. The summary lists the 1,000 most frequent values, so this misses only a
 *   choice field with more than 1,000 distinct values stored, where the removed value is rarer
 *   than all of them (documented; such fields are not choice lists in practice).
 */
import type { DiffField } from '../diff/index.js';
import { joinPointer } from '../json-pointer.js';
import { acceptanceOf, scalarKind, type FieldAcceptance } from './accepts.js';
import { MAX_VALUES } from './summarise.js';
import type { FieldUsage, ValueKind } from './types.js';

type Scalar = string | number | boolean;
const CHOICE_KINDS = new Set(['single_choice', 'multi_choice', 'inline_choice']);

export interface Hurt {
  events: number;
  atLeast: boolean;
  /** Refused values (most frequent first) and refused kinds, for the message. */
  values: Scalar[];
  kinds: ValueKind[];
  pointer: string;
}

export interface ValueHurts {
  removedChoice?: Hurt;
  narrowed?: Hurt;
}

export function valueHurts(old: DiffField, now: DiffField, usage: FieldUsage): ValueHurts {
  if (sameValueRules(old, now)) return {};
  const a = acceptanceOf(old);
  const b = acceptanceOf(now);
  const choiceField = CHOICE_KINDS.has(old.kind) && CHOICE_KINDS.has(now.kind);
  const out: ValueHurts = {};
  const narrowed = { events: 0, atLeast: false, values: [] as Scalar[], kinds: [] as ValueKind[], max: 0, listed: 0 };
  for (const [kind, count] of Object.entries(usage.kinds) as Array<[ValueKind, number]>) {
    if (count > 0 && a.kind(kind) && !b.kind(kind)) { narrowed.events += count; narrowed.kinds.push(kind); }
  }
  const removed = { values: [] as Scalar[], sum: 0, max: 0 };
  // a change between a list and a single value is judged by kinds alone (above)
  const sameShape = a.list === b.list;
  if (sameShape) {
    for (const { value, events } of usage.values) {
      if (!b.list && !b.kind(scalarKind(value))) continue;
      if (!(a.value(value) && a.choice(value))) continue;
      const choiceOk = b.choice(value);
      const valueOk = b.value(value);
      if (choiceOk && valueOk) continue;
      if (choiceField && !choiceOk && valueOk) { removed.values.push(value); removed.sum += events; removed.max = Math.max(removed.max, events); }
      else { narrowed.values.push(value); narrowed.listed += events; narrowed.max = Math.max(narrowed.max, events); }
    }
  }
  if (removed.values.length > 0) {
    out.removedChoice = {
      events: b.list ? removed.max : removed.sum, atLeast: b.list && removed.values.length > 1,
      values: removed.values, kinds: [], pointer: now.valuePointer,
    };
  }
  let listedPart = b.list ? narrowed.max : narrowed.listed;
  let atLeast = b.list && narrowed.values.length > 1;
  if (sameShape && !usage.values_complete) {
    const extra = unlistedRefused(a, b, usage, choiceField);
    if (extra.exact !== undefined) listedPart += extra.exact;
    else if (listedPart > 0 || extra.proven) { listedPart = Math.max(listedPart, 1); atLeast = true; }
  }
  narrowed.events += listedPart;
  if (narrowed.events > 0) {
    out.narrowed = { events: narrowed.events, atLeast, values: narrowed.values, kinds: narrowed.kinds, pointer: narrowingPointer(old, now, narrowed.kinds.length > 0) };
  }
  return out;
}

/** Whether both revisions judge values alike (same type, constraints and choices): most fields of a revision. */
function sameValueRules(old: DiffField, now: DiffField): boolean {
  if (old.type !== now.type || old.constraints.size !== now.constraints.size) return false;
  for (const [keyword, value] of old.constraints) if (JSON.stringify(now.constraints.get(keyword)) !== JSON.stringify(value)) return false;
  const a = old.choices;
  const b = now.choices;
  if (!a || !b) return a === b;
  if (a.values.size !== b.values.size || a.unresolved.join('\n') !== b.unresolved.join('\n')) return false;
  for (const key of a.values.keys()) if (!b.values.has(key)) return false;
  return true;
}

/** What the values not listed can show: an exact count (strings newly limited to choices), or a proven refusal. */
function unlistedRefused(a: FieldAcceptance, b: FieldAcceptance, usage: FieldUsage, choiceField: boolean): { exact?: number; proven: boolean } {
  const cut = usage.values.length >= MAX_VALUES;
  if (!choiceField && !b.list && !a.hasChoices && b.hasChoices && !cut && (b.longestChoice ?? 0) <= 200 && a.kind('string') && b.kind('string')) {
    const listedStrings = usage.values.reduce((n, v) => n + (typeof v.value === 'string' ? v.events : 0), 0);
    return { exact: Math.max(0, (usage.kinds.string ?? 0) - listedStrings), proven: false };
  }
  // the extremes are values some event holds: refused now and accepted before proves a hurt
  const probes: Scalar[] = [];
  if (usage.min !== undefined) probes.push(usage.min);
  if (usage.max !== undefined) probes.push(usage.max);
  const proven = probes.some((v) => a.value(v) && !b.value(v)) || lengthProven(a, b, usage);
  return { proven };
}

/** `min_length`/`max_length` outside the new bounds (inside the old ones). */
function lengthProven(a: FieldAcceptance, b: FieldAcceptance, usage: FieldUsage): boolean {
  const key = (k: string): string => (b.list ? `items/${k}` : k);
  const bound = (acc: FieldAcceptance, k: string): number | undefined => { const x = acc.constraint(key(k)); return typeof x === 'number' ? x : undefined; };
  const newMax = bound(b, 'maxLength'); const oldMax = bound(a, 'maxLength');
  const newMin = bound(b, 'minLength'); const oldMin = bound(a, 'minLength');
  // lengths are UTF-16 units here, code points in JSON Schema (units ≥ code points ≥ units/2):
  // only a bound the unit count cannot miss is proof
  if (usage.min_length !== undefined && newMin !== undefined && usage.min_length < newMin && (oldMin === undefined || usage.min_length >= oldMin)) return true;
  // a string of n units has at least n/2 code points
  if (usage.max_length !== undefined && newMax !== undefined && usage.max_length > 2 * newMax && (oldMax === undefined || usage.max_length <= oldMax)) return true;
  return false;
}

/** Where the narrowing is, in the proposed document: its `type`, its choices, or the first narrowed constraint. */
function narrowingPointer(old: DiffField, now: DiffField, kindRefused: boolean): string {
  if (kindRefused || old.type !== now.type) return joinPointer(now.pointer, 'type');
  if (now.choices && (!old.choices || old.choices.values.size !== now.choices.values.size)) return now.valuePointer;
  for (const [keyword, value] of now.constraints) {
    if (JSON.stringify(old.constraints.get(keyword)) !== JSON.stringify(value)) return joinPointer(now.pointer, ...keyword.split('/'));
  }
  return now.choices ? now.valuePointer : now.pointer;
}
