import type { FieldUsage, UsageSummary } from '../../schema/compat/types.js';
import { send } from '../helpers/catalog.js';
import type { TestServer } from '../helpers/server.js';
import type { Test } from 'tap';

/**
 * Issue 28 tests: a usage summary computed from scratch from the events themselves, independently
 * of server/domain/events/usage-deltas.ts (plain loops over the events, no hashing), to compare
 * the incrementally kept one with.
 */
export type StoredEvent = { type: string; details: Record<string, unknown> };

const kind = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

/**
 * Compares a served summary with expectedSummary's (which lists every value): a field with over
 * 1,000 values must list 1,000 of them, most frequent first, each with its true count (which of
 * several equally frequent values make the cut is the server's choice).
 */
export function sameSummary(t: Test, got: UsageSummary, expected: UsageSummary, message: string): void {
  const cut = structuredClone(expected);
  for (const [name, field] of Object.entries(cut.fields)) {
    if (field.values.length <= 1000) continue;
    const served = got.fields[name]?.values ?? [];
    const truth = new Map(field.values.map((v) => [JSON.stringify(v.value), v.events]));
    const threshold = field.values[999]!.events;
    t.ok(served.length === 1000 && served.every((v, i) => truth.get(JSON.stringify(v.value)) === v.events && v.events >= threshold && (i === 0 || served[i - 1]!.events >= v.events)), `${message}: ${name} lists 1,000 of the most frequent values`);
    field.values = served;
  }
  t.same(got, cut, message);
}

/** Every value listed, most frequent first (ties by JSON text), `values_complete` as served. */
export function expectedSummary(type: string, events: readonly StoredEvent[]): UsageSummary {
  const mine = events.filter((event) => event.type === type);
  const fields: Record<string, FieldUsage & { counts: Map<string, number>; long: boolean }> = {};
  for (const { details } of mine) {
    for (const [name, value] of Object.entries(details)) {
      const field = (fields[name] ??= { events: 0, kinds: {}, values: [], values_complete: true, counts: new Map(), long: false });
      field.events += 1;
      const k = kind(value) as keyof FieldUsage['kinds'];
      field.kinds[k] = (field.kinds[k] ?? 0) + 1;
      const scalars = (Array.isArray(value) ? value : [value]).filter((v) => ['string', 'number', 'boolean'].includes(typeof v));
      for (const text of new Set(scalars.map((v) => JSON.stringify(v)))) {
        const v = JSON.parse(text) as string | number | boolean;
        if (typeof v === 'number') {
          field.min = Math.min(field.min ?? v, v);
          field.max = Math.max(field.max ?? v, v);
        }
        if (typeof v === 'string') {
          field.min_length = Math.min(field.min_length ?? v.length, v.length);
          field.max_length = Math.max(field.max_length ?? v.length, v.length);
          if (v.length > 200) {
            field.long = true;
            continue;
          }
        }
        field.counts.set(text, (field.counts.get(text) ?? 0) + 1);
      }
    }
  }
  const out: UsageSummary = { event_type: type, events: mine.length, fields: {}, fields_complete: true };
  for (const [name, { counts, long, ...field }] of Object.entries(fields)) {
    const sorted = [...counts.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
    field.values = sorted.map(([text, n]) => ({ value: JSON.parse(text), events: n }));
    field.values_complete = sorted.length <= 1000 && !long;
    out.fields[name] = field;
  }
  return out;
}

const E = '/api/v1.0/activity/events';
export const V2 = '/api/v2.0/activity/eventtypes';
const OPEN_SCHEMA = { json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} }, ui: { fields: {}, sections: {}, order: [], headers: {} } };

/** A v2 type whose schema takes any details. */
export async function openType(s: TestServer, token: string, value: string): Promise<string> {
  const created = await s.json(V2, send('POST', { value, display: value, schema: OPEN_SCHEMA }, token));
  if (created.status !== 201) throw new Error(`type ${value}: ${created.status} ${JSON.stringify(created.body)}`);
  return String(created.body.id);
}

export async function createEvent(s: TestServer, token: string, type: string, details: Record<string, unknown>): Promise<string> {
  const created = await s.json(E, send('POST', { event_type: type, event_details: details }, token));
  if (created.status !== 201) throw new Error(`event: ${created.status} ${JSON.stringify(created.body)}`);
  return String(created.body.id);
}

