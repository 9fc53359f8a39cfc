import type { Knex } from 'knex';
import { serverMigrations } from '../../migrations/server/index.js';

type Entry = (typeof serverMigrations)[number];

/** A programmatic migration source: no file-system discovery, no loader tricks. */
const source: Knex.MigrationSource<Entry> = {
  getMigrations: async () => [...serverMigrations],
  getMigrationName: (entry) => entry.name,
  getMigration: async (entry) => entry.migration,
};

const migrationConfig: Knex.MigratorConfig = {
  migrationSource: source,
  tableName: 'knex_migrations',
  // Each migration is its own transaction on both dialects.
  disableTransactions: false,
};

export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest(migrationConfig)) as [number, string[]];
  return applied;
}

export async function rollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback(migrationConfig, true);
}

/** Names of migrations not yet applied (for readiness). */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(migrationConfig)) as [unknown, Entry[]];
  return pending.map((entry) => entry.name);
}
