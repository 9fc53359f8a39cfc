import type { FieldUsage, UsageSummary, ValueKind } from '../../../schema/compat/types.js';
import { fieldOfStored } from '../../domain/events/usage-deltas.js';
import { MAX_LISTED_VALUES, MAX_SUMMARY_FIELDS, type UsageBudget } from '../../domain/events/usage-ports.js';
import type { Executor } from '../rows.js';

type Row = Record<string, unknown>;

const TABLE = 'event_detail_usage';
/** Rows per field among the type/field/kind rows: the field's own row and at most 7 kinds. */
const ROWS_PER_FIELD = 8;
/** Fields per grouped statement (a UNION ALL of per-field probes; SQLite allows 500 terms). */
const FIELDS_PER_STATEMENT = 100;
/** Value rows one grouped statement may return (fields per statement shrink to stay under it). */
const ROWS_PER_STATEMENT = 50_000;
/** Kinds that hold a scalar (a field holding none has no value rows: not probed). */
const SCALAR_KINDS: readonly string[] = ['string', 'integer', 'number', 'boolean', 'array'];

const rowsOf = (result: unknown): Row[] => (result as { rows?: Row[] }).rows ?? (result as Row[]);

/**
 * One type's summary, taking its fields and values from `budget`. Statements: one for the type,
 * field and kind rows (an index range bounded by the fields wanted), then per FIELDS_PER_STATEMENT
 * fields (fewer when many values may come back) one for the listed values and one for the bounds:
 * at most 2 + 2 × ⌈fields / 100⌉ for a type whose fields list few values.
 */
export async function readSummary(db: Executor, tenantId: string, eventType: string, budget: UsageBudget): Promise<UsageSummary> {
  const scope = { tenant_id: tenantId, event_type: eventType };
  const cap = Math.min(MAX_SUMMARY_FIELDS, budget.fields);
  // The (tenant_id, event_type, grp, field, events) index, ordered by field alone (which it gives;
  // with value_key too SQLite walks the primary key, every value row of the type, to avoid a sort).
  const aggregates: Row[] = await db(TABLE).select('field', 'value_key', 'events').where({ ...scope, grp: 0 })
    .orderBy('field').limit(1 + cap * ROWS_PER_FIELD + 1);
  let events: number | null = null;
  const fields = new Map<string, FieldUsage>();
  let complete = true;
  for (const row of aggregates) {
    const field = row.field as string;
    const key = row.value_key as string;
    if (key === 't') {
      if (field === '') events = Number(row.events);
      continue;
    }
    if (!fields.has(field)) {
      if (fields.size === cap) { complete = false; continue; }
      fields.set(field, { events: 0, kinds: {}, values: [], values_complete: true });
    }
    const usage = fields.get(field)!;
    if (key === '') usage.events = Number(row.events);
    else usage.kinds[key.slice(2) as ValueKind] = Number(row.events);
  }
  // The type row sorts among the rows of field '' (the empty key's too): cut off only with those.
  if (events === null) {
    const row = await db(TABLE).select('events').where({ ...scope, grp: 0, field: '', value_key: 't' }).first();
    events = row ? Number(row.events) : 0;
  }
  const probed = [...fields.entries()].filter(([, usage]) => Object.keys(usage.kinds).some((kind) => SCALAR_KINDS.includes(kind)));
  let unfit: string | null = null;
  for (let start = 0; start < probed.length && unfit === null;) {
    const limit = Math.min(MAX_LISTED_VALUES, budget.values) + 1;
    const size = Math.max(1, Math.min(FIELDS_PER_STATEMENT, Math.floor(ROWS_PER_STATEMENT / limit)));
    const chunk = probed.slice(start, start + size);
    unfit = await describeValues(db, tenantId, eventType, chunk, limit, budget);
    start += chunk.length;
  }
  // A field is listed whole or not at all: the first whose values do not fit the budget, and
  // every field after it, are left out (`fields_complete` false), so `values_complete` keeps its meaning.
  let listed = [...fields.entries()];
  if (unfit !== null) {
    listed = listed.slice(0, listed.findIndex(([stored]) => stored === unfit));
    complete = false;
  }
  budget.fields -= listed.length;
  // fromEntries defines own properties: a key like `__proto__` is data, not a prototype.
  const shown = Object.fromEntries(listed.map(([stored, usage]) => [fieldOfStored(stored), usage]));
  return { event_type: eventType, events, fields: shown, fields_complete: complete };
}

/**
 * Two statements for a group of fields (by stored name): each field's `limit` most frequent listed
 * values; then its bounds and whether a string too long to list exists. Fields take their values
 * from the budget in order; the first whose list does not fit is returned (null: all fit).
 */
async function describeValues(db: Executor, tenantId: string, eventType: string, group: Array<[string, FieldUsage]>, limit: number, budget: UsageBudget): Promise<string | null> {
  const probe = `SELECT field, value_text, events FROM ${TABLE} WHERE tenant_id = ? AND event_type = ? AND grp = 1 AND field = ? ORDER BY events DESC LIMIT ${limit}`;
  const listed = rowsOf(await db.raw(group.map((_, i) => `SELECT * FROM (${probe}) AS v${i}`).join(' UNION ALL '), group.flatMap(([field]) => [tenantId, eventType, field])));
  const byField = new Map<string, Row[]>();
  for (const row of listed) byField.set(row.field as string, [...(byField.get(row.field as string) ?? []), row]);
  const bound = (column: 'num' | 'str_len', order: 'asc' | 'desc') =>
    `(SELECT ${column} FROM ${TABLE} WHERE tenant_id = ? AND event_type = ? AND field = ? AND ${column} IS NOT NULL ORDER BY ${column} ${order} LIMIT 1)`;
  const long = `(SELECT 1 FROM ${TABLE} WHERE tenant_id = ? AND event_type = ? AND grp = 2 AND field = ? LIMIT 1)`;
  const select = `SELECT CAST(? AS TEXT) AS field, ${bound('num', 'asc')} AS min, ${bound('num', 'desc')} AS max, ${bound('str_len', 'asc')} AS min_length, ${bound('str_len', 'desc')} AS max_length, ${long} AS long`;
  const bounds = rowsOf(await db.raw(group.map(() => select).join(' UNION ALL '), group.flatMap(([field]) => [field, ...Array.from({ length: 5 }, () => [tenantId, eventType, field]).flat()])));
  const boundsOf = new Map(bounds.map((row) => [row.field as string, row]));
  for (const [field, usage] of group) {
    const rows = byField.get(field) ?? [];
    const taken = Math.min(rows.length, MAX_LISTED_VALUES);
    if (taken > budget.values) return field;
    budget.values -= taken;
    const values = rows.map((row) => ({ value: JSON.parse(row.value_text as string) as string | number | boolean, events: Number(row.events), text: row.value_text as string }));
    // Ties in a stable order (by the value's JSON text), so equal summaries read equal.
    values.sort((a, b) => b.events - a.events || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    usage.values = values.slice(0, taken).map(({ value, events }) => ({ value, events }));
    const row = boundsOf.get(field) ?? {};
    usage.values_complete = taken === rows.length && (row.long === null || row.long === undefined);
    for (const name of ['min', 'max', 'min_length', 'max_length'] as const) {
      if (row[name] !== null && row[name] !== undefined) usage[name] = Number(row[name]);
    }
  }
  return null;
}
