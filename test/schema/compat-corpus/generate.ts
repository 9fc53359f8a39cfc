/**
 * Deterministic events for an event-type document: values drawn from each field's choices and
 * types (bounds, lengths, formats, simple patterns), then checked with the project's event
 * validation against the pre-rendered document; a key that fails is drawn again, then left out
 * (optional) — an event that still fails is an error of the generator, reported by the test.
 *
 * Reserved on purpose, so that the corpus has removals no stored event is hurt by: the last
 * value of every choice list with two or more, and (documents with three or more fields) the
 * last optional top-level field in key order, are never generated.
 */
import { parseChoiceReference } from '../../../schema/choice-reference.js';
import type { ChoiceLookup } from '../../../schema/diff/index.js';
import type { EventDetailsValidator } from '../../../schema/event-details.js';
import { stringForPattern } from './pattern-gen.js';
import type { Rng } from './prng.js';

type Json = any;
const WORDS = ['north', 'gate', 'river', 'fence', 'dusk', 'track', 'camp', 'ridge', 'water', 'herd', 'road', 'hill'];
const MAX_DEPTH = 6;

/** The values a node's choice keywords offer (enum, const, anyOf/oneOf of const/enum/choice-list entries), or null. */
export function choiceCandidates(node: Json, lookup: ChoiceLookup): unknown[] | null {
  if (!node || typeof node !== 'object') return null;
  if (Object.hasOwn(node, 'const')) return [node.const];
  if (Array.isArray(node.enum)) return node.enum;
  for (const keyword of ['anyOf', 'oneOf']) {
    const entries = node[keyword];
    if (!Array.isArray(entries) || entries.length === 0) continue;
    const out: unknown[] = [];
    for (const e of entries) {
      if (e && Object.hasOwn(e, 'const')) out.push(e.const);
      else if (e && Array.isArray(e.enum)) out.push(...e.enum);
      else if (e && typeof e.$ref === 'string' && parseChoiceReference(e.$ref)) {
        for (const list of parseChoiceReference(e.$ref)!.fields) out.push(...(lookup(list) ?? []).map((x) => x.value));
      } else return null;
    }
    return out;
  }
  return null;
}

/** Choices a generator may use: all but the reserved last one. */
function usable(values: unknown[]): unknown[] {
  return values.length >= 2 ? values.slice(0, -1) : values;
}

function num(x: unknown): number | undefined {
  return typeof x === 'number' ? x : undefined;
}

function genNumber(node: Json, rng: Rng, integer: boolean): number {
  let lo = num(node.minimum) ?? (num(node.exclusiveMinimum) !== undefined ? num(node.exclusiveMinimum)! + 1 : 0);
  let hi = num(node.maximum) ?? (num(node.exclusiveMaximum) !== undefined ? num(node.exclusiveMaximum)! - 1 : lo + 150);
  lo = Math.ceil(lo); hi = Math.floor(hi);
  const step = num(node.multipleOf);
  if (step !== undefined && step > 0) {
    const k = rng.int(Math.ceil(lo / step), Math.max(Math.ceil(lo / step), Math.floor(hi / step)));
    return Math.round(k * step * 1e9) / 1e9;
  }
  const base = rng.int(lo, Math.max(lo, hi));
  return !integer && base + 0.5 <= hi && rng.chance(0.4) ? base + 0.5 : base;
}

function genString(node: Json, rng: Rng): string | undefined {
  switch (node.format) {
    case 'date': return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}`;
    case 'time': return `1${rng.int(0, 9)}:${rng.int(10, 59)}:00Z`;
    case 'date-time': return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}T0${rng.int(0, 9)}:${rng.int(10, 59)}:00Z`;
    case 'email': return `${rng.pick(WORDS)}@example.org`;
    case 'uri': return `https://example.org/${rng.pick(WORDS)}`;
  }
  if (typeof node.pattern === 'string') return stringForPattern(node.pattern, rng) ?? undefined;
  let s = `${rng.skewed(WORDS)} ${rng.pick(WORDS)}${rng.chance(0.3) ? ` ${rng.int(1, 9)}` : ''}`;
  const min = num(node.minLength) ?? 0;
  const max = num(node.maxLength) ?? 200;
  while (s.length < min) s += 'x';
  return s.slice(0, Math.max(min, Math.min(max, s.length)));
}

export function genValue(node: Json, rng: Rng, lookup: ChoiceLookup, depth = 0): unknown {
  if (node === true || node === undefined) return rng.pick(WORDS);
  if (!node || typeof node !== 'object' || depth > MAX_DEPTH) return undefined;
  const choices = choiceCandidates(node, lookup);
  if (choices) return choices.length > 0 ? rng.skewed(usable(choices)) : undefined;
  const types: string[] = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type.filter((t: string) => t !== 'null') : [];
  const type = types[0] ?? (node.properties ? 'object' : node.items ? 'array' : 'string');
  switch (type) {
    case 'integer': return genNumber(node, rng, true);
    case 'number': return genNumber(node, rng, false);
    case 'boolean': return rng.chance(0.5);
    case 'string': return genString(node, rng);
    case 'object': return genObject(node, rng, lookup, depth + 1, new Set());
    case 'array': return genArray(node, rng, lookup, depth + 1);
    default: return undefined;
  }
}

function genArray(node: Json, rng: Rng, lookup: ChoiceLookup, depth: number): unknown[] | undefined {
  const min = num(node.minItems) ?? 0;
  const max = Math.max(min, Math.min(num(node.maxItems) ?? min + 3, min + 3));
  const n = rng.int(Math.max(min, 1), Math.max(max, Math.max(min, 1)));
  const choices = choiceCandidates(node.items, lookup);
  if (choices) {
    const pool = rng.shuffle([...usable(choices)]);
    // skewed: the front of the list more often
    const chosen = pool.slice(0, Math.min(n, pool.length)).sort((a, b) => usable(choices).indexOf(a) - usable(choices).indexOf(b));
    return chosen.length >= min ? chosen : undefined;
  }
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const v = genValue(node.items, rng, lookup, depth);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

export function genObject(node: Json, rng: Rng, lookup: ChoiceLookup, depth: number, skip: ReadonlySet<string>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const required = new Set<string>(Array.isArray(node.required) ? node.required : []);
  for (const [key, sub] of Object.entries<Json>(node.properties ?? {})) {
    if (skip.has(key) || (!required.has(key) && !rng.chance(0.7))) continue;
    const v = genValue(sub, rng, lookup, depth);
    if (v !== undefined) out[key] = v;
    else if (required.has(key)) return undefined;
  }
  return out;
}

/** The top-level field a document's events never hold (see the file comment), or undefined. */
export function reservedField(json: Json): string | undefined {
  const names = Object.keys(json.properties ?? {});
  if (names.length < 3) return undefined;
  const required = new Set(json.required ?? []);
  return names.filter((n) => !required.has(n)).pop();
}

export function generateEvents(json: Json, count: number, rng: Rng, lookup: ChoiceLookup, validate: EventDetailsValidator): Array<Record<string, unknown>> {
  const reserved = reservedField(json);
  const skip = new Set(reserved === undefined ? [] : [reserved]);
  const events: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) {
    const event = genObject(json, rng, lookup, 0, skip) ?? {};
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = validate(event);
      if (result.valid) break;
      const keys = new Set(result.issues.map((issue) => (((issue.pointer ?? "").split("/")[1]) ?? "").replace(/~1/g, '/').replace(/~0/g, '~')));
      for (const key of keys) {
        const v = attempt < 3 ? genValue(json.properties?.[key], rng, lookup, 0) : undefined;
        if (v === undefined) delete event[key];
        else event[key] = v;
      }
    }
    events.push(event);
  }
  return events;
}
