import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Issue 28: usage counts of stored `event_details`, kept by every event write in its transaction
 * (server/domain/events/usage-deltas.ts describes the rows), so a usage summary never scans events.
 * Keyed per (tenant_id, event_type, field, value_key); `grp` 0 for the type/field/kind rows, 1 for
 * a listed scalar value (`value_text`, its JSON), 2 for a string too long to list. `num` and
 * `str_len` (with their indexes) give the numeric and length bounds of a field in one probe each.
 * The backfill counts the events already stored, 1,000 at a time in keyset order.
 */
const TABLE = 'event_detail_usage';
const LISTED_STRING_MAX = 200;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('event_type', 50).notNullable();
    t.text('field').notNullable();
    t.string('value_key', 40).notNullable();
    t.smallint('grp').notNullable();
    t.bigInteger('events').notNullable();
    t.text('value_text').nullable();
    t.double('num').nullable();
    t.integer('str_len').nullable();
    t.primary(['tenant_id', 'event_type', 'field', 'value_key']);
    t.index(['tenant_id', 'event_type', 'grp', 'field', 'events'], 'event_detail_usage_group');
    t.index(['tenant_id', 'event_type', 'field', 'num'], 'event_detail_usage_num');
    t.index(['tenant_id', 'event_type', 'field', 'str_len'], 'event_detail_usage_length');
  });
  await backfill(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(TABLE);
}

type UsageRow = { tenant_id: string; event_type: string; field: string; value_key: string; grp: number; events: number; value_text: string | null; num: number | null; str_len: number | null };

/** The rows of one event (as usageRowsOf in usage-deltas.ts; kept in step by the tests). */
function rowsOf(tenantId: string, eventType: string, details: Record<string, unknown>): UsageRow[] {
  const base = { tenant_id: tenantId, event_type: eventType, grp: 0, events: 1, value_text: null, num: null, str_len: null };
  const rows: UsageRow[] = [{ ...base, field: '', value_key: 't' }];
  for (const [name, value] of Object.entries(details)) {
    // As storedField in usage-deltas.ts: PostgreSQL text cannot hold U+0000.
    const field = name.includes('\u0000') || name.startsWith('\u001b') ? `\u001b${JSON.stringify(name)}` : name;
    const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
    rows.push({ ...base, field, value_key: '' }, { ...base, field, value_key: `k:${kind}` });
    const seen = new Set<string>();
    for (const scalar of Array.isArray(value) ? value : [value]) {
      if (!(typeof scalar === 'string' || typeof scalar === 'boolean' || (typeof scalar === 'number' && Number.isFinite(scalar)))) continue;
      const text = JSON.stringify(scalar);
      const key = `v:${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const long = typeof scalar === 'string' && scalar.length > LISTED_STRING_MAX;
      rows.push({ ...base, field, value_key: key, grp: long ? 2 : 1, value_text: long ? null : text, num: typeof scalar === 'number' ? scalar : null, str_len: typeof scalar === 'string' ? scalar.length : null });
    }
  }
  return rows;
}

export async function backfill(knex: Knex, batch = 1000): Promise<void> {
  let after: { tenant_id: string; id: string } | null = null;
  for (;;) {
    const query = knex('events').select('tenant_id', 'id', 'event_type', 'event_details').orderBy([{ column: 'tenant_id' }, { column: 'id' }]).limit(batch);
    if (after) query.whereRaw('(tenant_id, id) > (?, ?)', [after.tenant_id, after.id]);
    const events: Array<{ tenant_id: string; id: string; event_type: string; event_details: unknown }> = await query;
    if (events.length === 0) return;
    const counts = new Map<string, UsageRow>();
    for (const event of events) {
      const details = typeof event.event_details === 'string' ? JSON.parse(event.event_details) : (event.event_details ?? {});
      for (const row of rowsOf(event.tenant_id, event.event_type, details as Record<string, unknown>)) {
        const key = [row.tenant_id, row.event_type, row.field, row.value_key].join('\u0000');
        const existing = counts.get(key);
        if (existing) existing.events += 1;
        else counts.set(key, row);
      }
    }
    const rows = [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
    // 400 rows a statement: SQLite compiles a multi-row insert as a compound SELECT (at most 500 terms).
    for (let start = 0; start < rows.length; start += 400) {
      await knex(TABLE).insert(rows.slice(start, start + 400)).onConflict(['tenant_id', 'event_type', 'field', 'value_key'])
        .merge({ events: knex.raw(`${TABLE}.events + excluded.events`) });
    }
    after = events[events.length - 1]!;
  }
}
