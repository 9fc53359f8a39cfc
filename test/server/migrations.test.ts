import t from 'tap';
import { migrateToLatest, pendingMigrations, rollbackAll } from '../../server/db/migrate.js';
import { serverMigrations } from '../../migrations/server/index.js';
import { dialect, openTestDatabase } from '../helpers/database.js';

t.test(`migrations run up, down and up again (${dialect})`, async (t) => {
  const database = await openTestDatabase(t);
  if (!database) return;
  const { knex } = database;
  t.same(await pendingMigrations(knex), serverMigrations.map((m) => m.name), 'everything pending on an empty database');
  t.same(await migrateToLatest(knex), serverMigrations.map((m) => m.name));
  t.same(await pendingMigrations(knex), []);
  for (const table of ['tenants', 'users', 'oauth_clients', 'oauth_access_tokens', 'oauth_refresh_tokens', 'oauth_authorization_codes', 'auth_failures']) {
    t.ok(await knex.schema.hasTable(table), `${table} exists`);
  }
  t.same(await migrateToLatest(knex), [], 'running again is a no-op');
  await rollbackAll(knex);
  for (const table of ['tenants', 'users', 'oauth_clients']) t.notOk(await knex.schema.hasTable(table), `${table} dropped`);
  t.same(await migrateToLatest(knex), serverMigrations.map((m) => m.name), 'up again after down');
  if (dialect === 'sqlite') {
    const [mode] = (await knex.raw('PRAGMA journal_mode')) as Array<{ journal_mode: string }>;
    t.equal(mode?.journal_mode, 'wal');
    const [fk] = (await knex.raw('PRAGMA foreign_keys')) as Array<{ foreign_keys: number }>;
    t.equal(fk?.foreign_keys, 1);
    const [sync] = (await knex.raw('PRAGMA synchronous')) as Array<{ synchronous: number }>;
    t.equal(sync?.synchronous, 1, 'NORMAL (1): durable against a crash of the process in WAL mode');
  }
});

t.test(`subject_status keeps one tenant index, (tenant_id, updated_at), which every status update writes (${dialect})`, async (t) => {
  const database = await openTestDatabase(t);
  if (!database) return;
  const { knex } = database;
  await migrateToLatest(knex);
  const indexes = async () => {
    const rows = dialect === 'postgres'
      ? ((await knex.raw("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'subject_status'")) as { rows: Array<{ name: string }> }).rows
      : ((await knex.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'subject_status' AND name NOT LIKE 'sqlite_autoindex_%'")) as Array<{ name: string }>);
    return rows.map((row) => row.name).filter((name) => name !== 'subject_status_pkey').sort();
  };
  t.same(await indexes(), ['subject_status_tenant_updated_idx'], 'the (tenant_id) index, a prefix of (tenant_id, updated_at), is gone');
  const migration = serverMigrations.find((m) => m.name === '20261124_0101_subject_status_index')!.migration;
  await migration.down!(knex);
  t.same(await indexes(), ['subject_status_tenant_id_index', 'subject_status_tenant_updated_idx'], 'down restores it');
  await migration.up(knex);
  t.same(await indexes(), ['subject_status_tenant_updated_idx'], 'up drops it again');
});
