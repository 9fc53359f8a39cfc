import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import type { Test } from 'tap';
import type { DatabaseConfig } from '../../server/config.js';
import { type Database, openDatabase } from '../../server/db/knex.js';

/**
 * The dialect under test: `FIELDOPS_TEST_DIALECT=sqlite` (default) or `postgres`. The PostgreSQL
 * server is `FIELDOPS_TEST_PG_URL` (default postgres://postgres@127.0.0.1:5432/test); each test
 * file gets a database of its own, dropped at the end.
 */
export const dialect: 'sqlite' | 'postgres' = process.env.FIELDOPS_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
/** The PostgreSQL server's maintenance database: tests create theirs through it. */
export const adminUrl = process.env.FIELDOPS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  config: DatabaseConfig;
  /** A connection string or file path, as `--database` takes it. */
  location: string;
  /**
   * A folder of its own for the server's files (`FIELDOPS_DATA_DIR`), removed with the database:
   * beside the SQLite file, or a temporary folder for PostgreSQL (never a path made from the URL).
   */
  dataDir: string;
  drop(): Promise<void>;
}

let reachable: Promise<string | null> | null = null;

/** null when the dialect can run here; otherwise why not (the file then skips). */
export function unavailableReason(): Promise<string | null> {
  if (dialect === 'sqlite') return Promise.resolve(null);
  reachable ??= (async () => {
    const knex = knexFactory({ client: 'pg', connection: { connectionString: adminUrl, connectionTimeoutMillis: 3000 } });
    try {
      await knex.raw('select 1');
      return null;
    } catch (error) {
      return `PostgreSQL is not reachable at ${adminUrl} (${(error as Error).message}); skipping the PostgreSQL run`;
    } finally {
      await knex.destroy();
    }
  })();
  return reachable;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-test-'));
    const filename = path.join(dir, 'test.sqlite3');
    return {
      config: { dialect: 'sqlite', filename, synchronous: 'NORMAL' },
      location: filename,
      dataDir: `${filename}.data`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `fieldops_t_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl });
  try {
    await admin.raw(`CREATE DATABASE ${name}`);
  } finally {
    await admin.destroy();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-test-data-'));
  return {
    config: { dialect: 'postgres', url: url.toString(), poolMax: 10 },
    location: url.toString(),
    dataDir,
    drop: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      const dropper = knexFactory({ client: 'pg', connection: adminUrl });
      try {
        await dropper.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.destroy();
      }
    },
  };
}

/**
 * A new, empty test database (not opened), dropped when `t` ends; null, with a passing point
 * that says why, when this dialect cannot run here.
 */
export async function createTestDatabaseFor(t: Test): Promise<TestDatabase | null> {
  const reason = await unavailableReason();
  if (reason) {
    t.pass('skipped', { skip: reason });
    return null;
  }
  const testDb = await createTestDatabase();
  t.teardown(() => testDb.drop());
  return testDb;
}

/**
 * A new, empty test database opened as the server opens it, closed and dropped when `t` ends;
 * null, with a passing point that says why, when this dialect cannot run here.
 */
export async function openTestDatabase(t: Test): Promise<Database | null> {
  const reason = await unavailableReason();
  if (reason) {
    t.pass('skipped', { skip: reason });
    return null;
  }
  const testDb = await createTestDatabase();
  const database = openDatabase(testDb.config);
  t.teardown(async () => {
    await database.close();
    await testDb.drop();
  });
  return database;
}

/**
 * A temporary folder for a server process's files (FIELDOPS_DATA_DIR), removed after the test:
 * never derived from the database's location (a PostgreSQL URL would become a folder in the
 * working directory).
 */
export function serverDataDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-serve-data-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
