/**
 * Issue 28, on both databases: bounded value lists (over 1,000 distinct values), parallel writes
 * of one type (exact counts; on PostgreSQL truly concurrent transactions), and the migration's
 * backfill of events stored before it (the same rows as the incremental path).
 */
import type { Knex } from 'knex';
import t from 'tap';
import { serverMigrations } from '../../migrations/server/index.js';
import { KnexEventUsageRepository } from '../../server/db/repositories/event-usage.js';
import { usageDeltas } from '../../server/domain/events/usage-deltas.js';
import { openTestDatabase } from '../helpers/database.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { type StoredEvent, V2, createEvent, expectedSummary, openType, sameSummary } from './event-usage-expected.js';

t.test(`over 1,000 distinct values; parallel creates (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await openType(s, token, 'bulk');
  const events: StoredEvent[] = [];
  const add = async (details: Record<string, unknown>) => {
    await createEvent(s, token, 'bulk', details);
    events.push({ type: 'bulk', details });
  };
  // 1,100 distinct elements in one event, some again in a second: the most frequent are listed first.
  await add({ codes: Array.from({ length: 1100 }, (_, i) => i - 50), label: 'a' });
  await add({ codes: [7, 8, -50, 2.5], label: 'b'.repeat(150) });
  const summary = (await s.json(`${V2}/bulk/usage`, { token })).body.data;
  t.equal(summary.fields.codes.values.length, 1000, 'at most 1,000 values');
  t.equal(summary.fields.codes.values_complete, false, 'more exist');
  t.same(summary.fields.codes.values.slice(0, 3), [{ value: -50, events: 2 }, { value: 7, events: 2 }, { value: 8, events: 2 }], 'most frequent first');
  t.match(summary.fields.codes, { min: -50, max: 1049, kinds: { array: 2 } });
  t.notOk('min_length' in summary.fields.codes, 'no string, no lengths');
  t.match(summary.fields.label, { min_length: 1, max_length: 150, values_complete: true });
  t.notOk('min' in summary.fields.label, 'no number, no bounds');
  sameSummary(t, summary, expectedSummary('bulk', events), 'as counted from scratch');

  // Parallel creates of one type with overlapping values: every count exact.
  const parallel = Array.from({ length: 24 }, (_, i) => ({ species: ['lion', 'eland', 'zebra'][i % 3], count: i % 5, fresh: `v${i}`, tags: ['x', `t${i % 4}`] }));
  await Promise.all(parallel.map((details) => add(details)));
  sameSummary(t, (await s.json(`${V2}/bulk/usage`, { token })).body.data, expectedSummary('bulk', events), 'parallel creates counted exactly');
});

type Entry = (typeof serverMigrations)[number];
const NAME = '20261130_0102_event_detail_usage';
const config = (entries: readonly Entry[]): Knex.MigratorConfig => ({
  tableName: 'knex_migrations',
  migrationSource: { getMigrations: async () => [...entries], getMigrationName: (entry: Entry) => entry.name, getMigration: async (entry: Entry) => entry.migration },
});

t.test(`the migration backfills the events stored before it (${dialect})`, async (t) => {
  const database = await openTestDatabase(t);
  if (!database) return;
  const { knex } = database;
  const before = serverMigrations.slice(0, serverMigrations.findIndex((entry) => entry.name === NAME));
  await knex.migrate.latest(config(before));
  const tenants = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
  for (const [i, id] of tenants.entries()) await knex('tenants').insert({ id, name: `t${i}`, created_at: 1 });
  const stored: Array<StoredEvent & { tenant: string }> = [];
  // 2,500 events: the backfill's batches (1,000) and its keyset across tenants.
  for (let i = 0; i < 2500; i += 1) {
    const details = i % 7 === 0 ? {} : { species: ['lion', 'eland'][i % 2], n: i % 13, flag: i % 3 === 0, list: [i % 4, 'k'], long: i % 500 === 1 ? 'z'.repeat(300) : i % 250 === 3 ? 'q'.repeat(150) : 'short' };
    stored.push({ tenant: tenants[i % 2]!, type: i % 5 === 0 ? 'other' : 'main', details });
  }
  const rows = stored.map((event, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, tenant_id: event.tenant, event_type: event.type, time: 1, event_details: JSON.stringify(event.details), created_at: 1, updated_at: 1, serial_number: i + 1 }));
  for (let start = 0; start < rows.length; start += 200) await knex('events').insert(rows.slice(start, start + 200));
  await knex.migrate.latest(config(serverMigrations.slice(0, before.length + 1)));

  const usage = new KnexEventUsageRepository(knex);
  for (const tenant of tenants) {
    for (const type of ['main', 'other']) {
      t.same(await usage.summary(tenant, type), expectedSummary(type, stored.filter((e) => e.tenant === tenant)), `${type} of ${tenant.slice(0, 4)}: backfilled`);
    }
  }
  // The backfill's rows are exactly the incremental path's (the migration repeats usage-deltas.ts).
  const backfilled = await knex('event_detail_usage').orderBy(['tenant_id', 'event_type', 'field', 'value_key']);
  await knex('event_detail_usage').delete();
  for (const event of stored) await usage.apply(event.tenant, usageDeltas(null, { eventType: event.type, details: event.details }));
  t.same(await knex('event_detail_usage').orderBy(['tenant_id', 'event_type', 'field', 'value_key']), backfilled, 'the same rows as the incremental path');
  await knex.migrate.down(config(serverMigrations.slice(0, before.length + 1)));
  t.notOk(await knex.schema.hasTable('event_detail_usage'), 'down drops the table');
});
