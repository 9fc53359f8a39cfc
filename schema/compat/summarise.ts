/**
 * Issue 28: the reference usage summariser. Computes a `UsageSummary` (types.ts) from the stored
 * events' `event_details` in one pass; the server keeps the same numbers incrementally, and tests
 * cross-check the two with this function. Pure and linear in the size of the details.
 *
 * Exact semantics (what the server's incremental counts must reproduce):
 * - `events` counts every details object given (a non-object counts as an event with no keys).
 * - `fields[key]` for every top-level key present (a key holding `null` is present: kind `null`).
 * - `kinds` counts events by the JSON kind of the top-level value; `integer` when
 *   `Number.isInteger`, else `number`. Array elements are not counted in `kinds`.
 * - Scalars are strings, numbers and booleans (`null` is not a value: it shows in `kinds` only).
 *   A top-level scalar, or each DISTINCT scalar element of a top-level array, counts once per
 *   event in `values`. Objects and nested arrays (and what they hold) are not looked into.
 * - A string longer than `MAX_VALUE_LENGTH` UTF-16 code units is never listed and makes
 *   `values_complete` false; so do more than `MAX_VALUES` distinct values (the rest are cut).
 * - `values` are ordered by events descending, then by canonical value: the `JSON.stringify`
 *   text compared by UTF-16 code units (so `1` and `"1"` are distinct; strings, whose text starts
 *   with `"`, sort before numbers, negative ones first, then `false`, then `true`).
 * - `min`/`max` over every numeric scalar (elements too), `min_length`/`max_length` over every
 *   string's length (elements too, long strings included); absent when there is none.
 */
import type { FieldUsage, UsageSummary, ValueKind } from './types.js';

export const MAX_VALUE_LENGTH = 200;
export const MAX_VALUES = 1_000;

type Scalar = string | number | boolean;

interface Acc {
  events: number;
  kinds: Partial<Record<ValueKind, number>>;
  values: Map<string, { value: Scalar; events: number }>;
  long: boolean;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
}

export function kindOf(value: unknown): ValueKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string': return 'string';
    case 'boolean': return 'boolean';
    case 'number': return Number.isInteger(value) ? 'integer' : 'number';
    default: return 'object';
  }
}

/** The canonical key of a scalar (its JSON text), used for identity and for ordering ties. */
export function valueKey(value: Scalar): string {
  return JSON.stringify(value);
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function note(acc: Acc, v: Scalar, seen: Set<string> | null): void {
  if (typeof v === 'number') {
    acc.min = acc.min === undefined ? v : Math.min(acc.min, v);
    acc.max = acc.max === undefined ? v : Math.max(acc.max, v);
  } else if (typeof v === 'string') {
    acc.minLength = acc.minLength === undefined ? v.length : Math.min(acc.minLength, v.length);
    acc.maxLength = acc.maxLength === undefined ? v.length : Math.max(acc.maxLength, v.length);
    if (v.length > MAX_VALUE_LENGTH) { acc.long = true; return; }
  }
  const key = valueKey(v);
  if (seen) { if (seen.has(key)) return; seen.add(key); }
  const entry = acc.values.get(key);
  if (entry) entry.events += 1;
  else acc.values.set(key, { value: v, events: 1 });
}

function addField(acc: Acc, value: unknown): void {
  acc.events += 1;
  const kind = kindOf(value);
  acc.kinds[kind] = (acc.kinds[kind] ?? 0) + 1;
  if (isScalar(value)) note(acc, value, null);
  else if (Array.isArray(value)) {
    const seen = new Set<string>();
    for (const el of value) if (isScalar(el)) note(acc, el, seen);
  }
}

function finish(acc: Acc): FieldUsage {
  const entries = [...acc.values.entries()];
  entries.sort((a, b) => b[1].events - a[1].events || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const complete = !acc.long && entries.length <= MAX_VALUES;
  const out: FieldUsage = {
    events: acc.events,
    kinds: acc.kinds,
    values: entries.slice(0, MAX_VALUES).map(([, e]) => ({ value: e.value, events: e.events })),
    values_complete: complete,
  };
  if (acc.min !== undefined) { out.min = acc.min; out.max = acc.max; }
  if (acc.minLength !== undefined) { out.min_length = acc.minLength; out.max_length = acc.maxLength; }
  return out;
}

export function summariseEvents(eventType: string, detailsList: Iterable<Record<string, unknown>>): UsageSummary {
  let events = 0;
  const accs = new Map<string, Acc>();
  for (const details of detailsList) {
    events += 1;
    if (details === null || typeof details !== 'object' || Array.isArray(details)) continue;
    for (const key of Object.keys(details)) {
      let acc = accs.get(key);
      if (!acc) { acc = { events: 0, kinds: {}, values: new Map(), long: false }; accs.set(key, acc); }
      addField(acc, details[key]);
    }
  }
  // fromEntries defines own properties, so a key like `__proto__` is data, not a prototype
  const fields: Record<string, FieldUsage> = Object.fromEntries([...accs.keys()].sort().map((k) => [k, finish(accs.get(k)!)]));
  return { event_type: eventType, events, fields, fields_complete: true };
}
