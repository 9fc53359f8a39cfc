/**
 * Opening a mirror file: SQLite through Knex (better-sqlite3), WAL with `synchronous=NORMAL`
 * (a committed sync survives the process being killed; only a power loss can undo the last one),
 * and the mirror's own migrations (migrations/mirror/) applied on open.
 *
 * Before migrating, the file is checked in ways that keep SQLite's error codes (Knex's migration
 * lock would hide them): it must be a database, not written by a newer fieldops, and writable.
 * Any failure is described by open-failure.ts; Knex's own log lines are silenced (they went to
 * stdout, into `--json` output).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { mirrorMigrations } from '../../migrations/mirror/index.js';
import { failure } from '../errors.js';
import { fsErrorCode, fsFailure } from '../fs-failure.js';
import { NewerMirrorError, mirrorFolderHint, mirrorOpenFailure } from './open-failure.js';

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
  pragma(source: string, options?: { simple?: boolean }): unknown;
  exec(source: string): unknown;
}

const quiet = () => {};
/** Knex logs lock and pool problems itself (to stdout); we report them once, as a failure. */
const silentLog = { warn: quiet, error: quiet, debug: quiet, deprecate: quiet };

/** Opens (creating when asked) and migrates the mirror; null when it does not exist and `create` is false. */
export async function openMirrorDatabase(filename: string, options: { create: boolean }): Promise<Knex | null> {
  if (filename !== ':memory:') {
    if (!options.create && !fs.existsSync(filename)) return null;
    try {
      fs.mkdirSync(path.dirname(filename), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fsFailure(error, `create the folder ${path.dirname(filename)} for the mirror`, mirrorFolderHint(filename));
    }
  }
  const knex = connect(filename, false);
  try {
    await refuseNewerSchema(knex);
    await probeWritable(knex);
    await knex.migrate.latest(migrationConfig);
  } catch (error) {
    await knex.destroy();
    throw mirrorOpenFailure(filename, error);
  }
  return knex;
}

/**
 * The mirror as it is, read-only and without migrating: for rescuing the outbox of a mirror that
 * cannot be opened normally (read-only, newer, damaged in other tables). NOTE: SQLite cannot
 * read a WAL-mode file read-only when it may not create the `-shm` file beside it (a read-only
 * folder); then a copy of the file (and its WAL) in a temporary folder is read instead.
 */
export async function openMirrorReadOnly(filename: string): Promise<{ knex: Knex; close(): Promise<void> }> {
  if (!fs.existsSync(filename)) throw failure('input', `there is no mirror at ${filename}`, 'check --profile, or FIELDOPS_MIRROR');
  try {
    const knex = await readable(filename);
    return { knex, close: () => knex.destroy() };
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('SQLITE_CANTOPEN')) throw mirrorOpenFailure(filename, error, { rescue: true });
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-mirror-copy-'));
  const remove = () => fs.rmSync(folder, { recursive: true, force: true });
  try {
    const copy = path.join(folder, path.basename(filename));
    fs.copyFileSync(filename, copy);
    if (fs.existsSync(`${filename}-wal`)) fs.copyFileSync(`${filename}-wal`, `${copy}-wal`);
    const knex = await readable(copy);
    return { knex, close: () => knex.destroy().finally(remove) };
  } catch (error) {
    remove();
    throw fsErrorCode(error) ? fsFailure(error, `copy ${filename} to read it`, 'check that the file can be read') : mirrorOpenFailure(filename, error, { rescue: true });
  }
}

async function readable(filename: string): Promise<Knex> {
  const knex = connect(filename, true);
  try {
    await knex.raw('select count(*) from sqlite_master');
    return knex;
  } catch (error) {
    await knex.destroy();
    throw error;
  }
}

function connect(filename: string, readonly: boolean): Knex {
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename, ...(readonly ? { options: { readonly: true, fileMustExist: true } } : {}) },
    useNullAsDefault: true,
    log: silentLog,
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
        try {
          if (!readonly) {
            connection.pragma('journal_mode = WAL');
            connection.pragma('synchronous = NORMAL');
          }
          connection.pragma('busy_timeout = 10000');
          done(null, connection);
        } catch (error) {
          done(error as Error, connection);
        }
      },
    },
  });
}

async function refuseNewerSchema(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('knex_migrations'))) return;
  const known = new Set(mirrorMigrations.map((m) => m.name));
  const applied = (await knex('knex_migrations').select('name')) as Array<{ name: string }>;
  const unknown = applied.map((row) => row.name).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new NewerMirrorError(unknown);
}

/**
 * A write that changes nothing, in a transaction rolled back: fails with SQLITE_READONLY on a
 * read-only file and SQLITE_BUSY on one another process is writing (after busy_timeout).
 */
async function probeWritable(knex: Knex): Promise<void> {
  const client = knex.client as { acquireConnection(): Promise<SqliteConnection>; releaseConnection(connection: SqliteConnection): Promise<unknown> };
  const connection = await client.acquireConnection();
  try {
    const version = Number(connection.pragma('user_version', { simple: true })) || 0;
    connection.exec('BEGIN IMMEDIATE');
    try {
      connection.pragma(`user_version = ${version}`);
    } catch (error) {
      // NOTE: SQLite may have ended the transaction itself; the write's error is the one to report.
      try {
        connection.exec('ROLLBACK');
      } catch {}
      throw error;
    }
    connection.exec('ROLLBACK');
  } finally {
    await client.releaseConnection(connection);
  }
}

export async function rollbackMirror(knex: Knex): Promise<void> {
  await knex.migrate.rollback(migrationConfig, true);
}
