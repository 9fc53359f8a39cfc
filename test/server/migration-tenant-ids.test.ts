import type { Knex } from 'knex';
import t from 'tap';
import { serverMigrations } from '../../migrations/server/index.js';
import { dialect, openTestDatabase } from '../helpers/database.js';

// Issue 13 item 12: the migration to per-tenant ids keeps every row and link, on both dialects,
// and its down restores global ids with the data.
type Entry = (typeof serverMigrations)[number];
const NAME = '20261123_0201_tenant_scoped_ids';
const config = (entries: readonly Entry[]): Knex.MigratorConfig => ({
  tableName: 'knex_migrations',
  migrationSource: { getMigrations: async () => [...entries], getMigrationName: (entry: Entry) => entry.name, getMigration: async (entry: Entry) => entry.migration },
});

t.test(`tenant-scoped ids: existing rows survive up and down (${dialect})`, async (t) => {
  const database = await openTestDatabase(t);
  if (!database) return;
  const { knex } = database;
  const before = serverMigrations.slice(0, serverMigrations.findIndex((entry) => entry.name === NAME));
  await knex.migrate.latest(config(before));
  const tenant = '11111111-1111-4111-8111-111111111111';
  const [patrol, segment, event, file, note] = ['a', 'b', 'c', 'd', 'e'].map((c) => `${c.repeat(8)}-0000-4000-8000-000000000000`);
  await knex('tenants').insert({ id: tenant, name: 'migrated', created_at: 1 });
  await knex('patrols').insert({ id: patrol, tenant_id: tenant, serial_number: 1, title: 'Kept', created_at: 1, updated_at: 1 });
  await knex('patrol_segments').insert({ id: segment, tenant_id: tenant, patrol_id: patrol, created_at: 1, updated_at: 1 });
  await knex('patrol_notes').insert({ id: note, tenant_id: tenant, patrol_id: patrol, text: 'n', created_at: 1, updated_at: 1 });
  await knex('events').insert({ id: event, tenant_id: tenant, event_type: 'x', time: 1, event_details: '{}', created_at: 1, updated_at: 1 });
  await knex('event_files').insert({ id: file, tenant_id: tenant, event_id: event, sha256: 'f'.repeat(64), path: 'p', size: 1, content_type: 'text/plain', created_at: 1 });
  await knex('segment_events').insert({ segment_id: segment, event_id: event });

  // Up to this migration only: later ones (other work) are not this test's business.
  const through = serverMigrations.slice(0, before.length + 1);
  await knex.migrate.latest(config(through));
  t.match(await knex('patrols').where({ id: patrol }).first(), { title: 'Kept', tenant_id: tenant });
  t.same(await knex('segment_events').select('tenant_id', 'segment_id', 'event_id'), [{ tenant_id: tenant, segment_id: segment, event_id: event }], 'links carry their tenant');
  for (const table of ['patrol_segments', 'patrol_notes', 'events', 'event_files']) t.equal(Number((await knex(table).count({ n: '*' }).first())?.n), 1, `${table} kept`);
  const other = '22222222-2222-4222-8222-222222222222';
  await knex('tenants').insert({ id: other, name: 'other', created_at: 1 });
  await knex('patrols').insert({ id: patrol, tenant_id: other, serial_number: 1, created_at: 1, updated_at: 1 });
  t.equal(Number((await knex('patrols').where({ id: patrol }).count({ n: '*' }).first())?.n), 2, 'the same id in two tenants');
  await knex('patrols').where({ tenant_id: tenant, id: patrol }).delete();
  t.equal(Number((await knex('patrol_segments').count({ n: '*' }).first())?.n), 0, 'deleting a patrol still cascades to its segments');
  t.equal(Number((await knex('segment_events').count({ n: '*' }).first())?.n), 0, '...and their links');
  t.equal(Number((await knex('events').count({ n: '*' }).first())?.n), 1, 'events stay');

  await knex('patrols').where({ tenant_id: other }).delete();
  await knex.migrate.down(config(through));
  t.equal(Number((await knex('event_files').where({ event_id: event }).count({ n: '*' }).first())?.n), 1, 'down keeps the rows');
  t.notOk(await knex.schema.hasColumn('segment_events', 'tenant_id'), 'and restores the global shape');
});
