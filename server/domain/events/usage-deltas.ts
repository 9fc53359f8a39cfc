import { createHash } from 'node:crypto';
import type { ValueKind } from '../../../schema/compat/types.js';

/**
 * Issue 28: what one event contributes to the usage counts of its type (table
 * `event_detail_usage`), and the difference a write makes. Pure: no database, no clock.
 *
 * Rows, each counting events (a row reaching 0 is removed):
 * - field '' / key 't': events of the type;
 * - field F / key '': events holding F; key 'k:<kind>': events whose F is of that JSON kind;
 * - field F / key 'v:<hash>': events holding that scalar value in F (as the value, or as an element
 *   of an array value: each distinct element once per event). The hash is of the value's JSON text,
 *   so a long string is a bounded key; its text is kept (`valueText`, group 1) only up to
 *   LISTED_STRING_MAX characters, longer strings are group 2 (counted, not listed).
 * NOTE: migrations/server/20261130_0102_event_detail_usage.ts repeats this for its backfill
 * (migrations import no application code): change both together.
 */
export const LISTED_STRING_MAX = 200;

/** 0: type, field and kind counts; 1: a listed scalar value; 2: a string too long to list. */
export type UsageGroup = 0 | 1 | 2;

export interface UsageRow {
  eventType: string;
  field: string;
  valueKey: string;
  group: UsageGroup;
  valueText: string | null;
  num: number | null;
  strLen: number | null;
}

export interface UsageDelta extends UsageRow {
  /** +n or -n events (never 0). */
  delta: number;
}

export interface DetailsOf {
  eventType: string;
  details: Record<string, unknown>;
}

export function kindOf(value: unknown): ValueKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}

const isScalar = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

export const valueKeyOf = (text: string): string => `v:${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;

function valueRow(eventType: string, field: string, value: string | number | boolean): UsageRow {
  const text = JSON.stringify(value);
  const long = typeof value === 'string' && value.length > LISTED_STRING_MAX;
  return {
    eventType, field, valueKey: valueKeyOf(text), group: long ? 2 : 1, valueText: long ? null : text,
    num: typeof value === 'number' ? value : null, strLen: typeof value === 'string' ? value.length : null,
  };
}

/**
 * PostgreSQL text cannot hold U+0000, which an `event_details` key stored before keys were checked
 * may contain: such a key (and, to stay unambiguous, one starting with FIELD_ESCAPE) is stored in
 * the `field` column as FIELD_ESCAPE + its JSON text, the same on both databases; summaries show
 * the key itself (fieldOfStored). Values need no escaping: they are stored as JSON text or hashed.
 */
export const FIELD_ESCAPE = '\u001b';
export const storedField = (key: string): string => (key.includes('\u0000') || key.startsWith(FIELD_ESCAPE) ? FIELD_ESCAPE + JSON.stringify(key) : key);
export const fieldOfStored = (stored: string): string => (stored.startsWith(FIELD_ESCAPE) ? (JSON.parse(stored.slice(FIELD_ESCAPE.length)) as string) : stored);

/** The rows one event counts in (each once); `field` as stored (storedField). */
export function usageRowsOf({ eventType, details }: DetailsOf): UsageRow[] {
  const base = { eventType, group: 0 as const, valueText: null, num: null, strLen: null };
  const rows: UsageRow[] = [{ ...base, field: '', valueKey: 't' }];
  for (const [key, value] of Object.entries(details)) {
    const field = storedField(key);
    rows.push({ ...base, field, valueKey: '' }, { ...base, field, valueKey: `k:${kindOf(value)}` });
    const scalars = Array.isArray(value) ? value.filter(isScalar) : isScalar(value) ? [value] : [];
    const seen = new Set<string>();
    for (const scalar of scalars) {
      const row = valueRow(eventType, field, scalar);
      if (!seen.has(row.valueKey)) rows.push(row);
      seen.add(row.valueKey);
    }
  }
  return rows;
}

/** The row's identity within a tenant; deltas are sorted by it (one lock order for every writer). */
export const usageKey = (row: Pick<UsageRow, 'eventType' | 'field' | 'valueKey'>): string => `${row.eventType}\u0000${row.field}\u0000${row.valueKey}`;

/** What changes when an event goes from `before` to `after` (null: absent); nothing for a no-op. */
export function usageDeltas(before: DetailsOf | null, after: DetailsOf | null): UsageDelta[] {
  const deltas = new Map<string, UsageDelta>();
  const add = (rows: UsageRow[], sign: number) => {
    for (const row of rows) {
      const key = usageKey(row);
      const existing = deltas.get(key);
      if (existing) existing.delta += sign;
      else deltas.set(key, { ...row, delta: sign });
    }
  };
  if (before) add(usageRowsOf(before), -1);
  if (after) add(usageRowsOf(after), 1);
  return [...deltas.entries()].filter(([, d]) => d.delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

/** Where an event write adds what it changes (a transaction's UsageTally; NO_USAGE_TALLY outside one). */
export interface UsageSink {
  add(tenantId: string, deltas: readonly UsageDelta[]): void;
}

/**
 * One transaction's usage deltas, summed per tenant and row as its event writes add them, and
 * applied ONCE just before its commit (server/db/store.ts), by tenant then key. So concurrent
 * transactions take the usage rows' locks in one order whatever order their events were written
 * in (events of types [A, B] against [B, A] would otherwise deadlock on PostgreSQL), and a row
 * a transaction adds to and takes from again is written once or not at all.
 */
export class UsageTally implements UsageSink {
  private readonly rows = new Map<string, { tenantId: string; delta: UsageDelta }>();

  add(tenantId: string, deltas: readonly UsageDelta[]): void {
    for (const delta of deltas) {
      const key = `${tenantId}\u0000${usageKey(delta)}`;
      const existing = this.rows.get(key);
      if (existing) existing.delta.delta += delta.delta;
      else this.rows.set(key, { tenantId, delta: { ...delta } });
    }
  }

  /** By tenant, each tenant's deltas in key order, without those summing to 0; empties the tally. */
  drain(): Array<{ tenantId: string; deltas: UsageDelta[] }> {
    const sorted = [...this.rows.entries()].filter(([, row]) => row.delta.delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.rows.clear();
    const out: Array<{ tenantId: string; deltas: UsageDelta[] }> = [];
    for (const [, { tenantId, delta }] of sorted) {
      const last = out[out.length - 1];
      if (last && last.tenantId === tenantId) last.deltas.push(delta);
      else out.push({ tenantId, deltas: [delta] });
    }
    return out;
  }
}

/** Repositories outside a transaction: an event write there is a programming error (as NO_TRANSACTION). */
export const NO_USAGE_TALLY: UsageSink = {
  add() {
    throw new Error('event write outside a transaction: its usage counts could not commit with it');
  },
};
