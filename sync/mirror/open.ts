/**
 * Opening a mirror file: SQLite through Knex (better-sqlite3), WAL with `synchronous=NORMAL`
 * (a committed sync survives the process being killed; only a power loss can undo the last one),
 * and the mirror's own migrations (migrations/mirror/) applied on open.
 */
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { mirrorMigrations } from '../../migrations/mirror/index.js';
import { failure } from '../errors.js';

type Entry = (typeof mirrorMigrations)[number];

const migrationConfig: Knex.MigratorConfig = {
  migrationSource: {
    getMigrations: async () => [...mirrorMigrations],
    getMigrationName: (entry: Entry) => entry.name,
    getMigration: async (entry: Entry) => entry.migration,
  },
  tableName: 'knex_migrations',
};

interface SqliteConnection {
  pragma(source: string): unknown;
}

/** Opens (creating when asked) and migrates the mirror; null when it does not exist and `create` is false. */
export async function openMirrorDatabase(filename: string, options: { create: boolean }): Promise<Knex | null> {
  if (filename !== ':memory:') {
    if (!options.create && !fs.existsSync(filename)) return null;
    fs.mkdirSync(path.dirname(filename), { recursive: true, mode: 0o700 });
  }
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
        try {
          connection.pragma('journal_mode = WAL');
          connection.pragma('synchronous = NORMAL');
          connection.pragma('busy_timeout = 10000');
          done(null, connection);
        } catch (error) {
          done(error as Error, connection);
        }
      },
    },
  });
  try {
    await knex.migrate.latest(migrationConfig);
  } catch (error) {
    await knex.destroy();
    throw failure('mirror', `cannot open the mirror ${filename}: ${(error as Error).message}`, 'delete the file and run `fieldops sync` to rebuild it');
  }
  return knex;
}

export async function rollbackMirror(knex: Knex): Promise<void> {
  await knex.migrate.rollback(migrationConfig, true);
}
