import path from 'node:path';
import { withoutStatementText } from './statement-text.js';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseConfig } from '../config.js';
import { ImmediateSqliteClient, SQLITE_BUSY_TIMEOUT_MS } from './sqlite-client.js';
import { createPrivateFileSync, ensurePrivateDirSync } from '../security/private-files.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  readonly knex: Knex;
  readonly dialect: Dialect;
  /** A description safe for logs and the start-up banner (no password). */
  readonly description: string;
  /** The pool's connections right now (for the metrics). */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  used: number;
  free: number;
  pendingAcquires: number;
  pendingCreates: number;
  max: number;
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

/** knex creates its pool (tarn) lazily: before the first query there is none, all zero. */
function poolStatsOf(knex: Knex, max: number): () => PoolStats {
  return () => {
    const pool = (knex.client as { pool?: TarnPool }).pool;
    if (!pool) return { used: 0, free: 0, pendingAcquires: 0, pendingCreates: 0, max };
    return { used: pool.numUsed(), free: pool.numFree(), pendingAcquires: pool.numPendingAcquires(), pendingCreates: pool.numPendingCreates(), max };
  };
}

/**
 * Opens the database. SQLite gets WAL (readers never block the writer), foreign keys, a busy
 * timeout, and `synchronous=NORMAL` by default: in WAL mode a commit is in the WAL file before
 * it returns, so an acknowledged write survives a crash of this process (only an operating
 * system crash or power loss can lose the last commits; FULL closes that too, at a cost).
 */
export function openDatabase(config: DatabaseConfig): Database {
  if (config.dialect === 'sqlite') {
    // 0700 directories and a 0600 database file (its -wal and -shm follow the file's mode).
    ensurePrivateDirSync(path.dirname(config.filename));
    if (config.filename !== ':memory:') createPrivateFileSync(config.filename);
    const knex = withoutStatementText(knexFactory({
      client: ImmediateSqliteClient as unknown as typeof Knex.Client,
      connection: { filename: config.filename },
      useNullAsDefault: true,
      compileSqlOnError: false,
      // better-sqlite3 is synchronous: one connection serialises writes without SQLITE_BUSY
      // between our own requests; other processes are covered by busy_timeout and by
      // transactions that take the write lock when they begin (see sqlite-client.ts).
      pool: {
        min: 1,
        max: 1,
        afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
          try {
            connection.pragma('journal_mode = WAL');
            connection.pragma('foreign_keys = ON');
            connection.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
            connection.pragma(`synchronous = ${config.synchronous}`);
            done(null, connection);
          } catch (error) {
            done(error as Error, connection);
          }
        },
      },
    }));
    return { knex, dialect: 'sqlite', description: `sqlite ${config.filename}`, poolStats: poolStatsOf(knex, 1), close: () => knex.destroy() };
  }
  const knex = withoutStatementText(knexFactory({
    client: 'pg',
    connection: { connectionString: config.url, connectionTimeoutMillis: 5000 },
    pool: { min: 0, max: config.poolMax, acquireTimeoutMillis: 10000 },
    acquireConnectionTimeout: 10000,
    compileSqlOnError: false,
    log: KNEX_LOG,
  }));
  return { knex, dialect: 'postgres', description: `postgres ${redactUrl(config.url)}`, poolStats: poolStatsOf(knex, config.poolMax), close: () => knex.destroy() };
}

/**
 * knex prints its own warnings on stdout (where the server's JSON logs go). A failed connection
 * attempt is also thrown to the caller, which reports it (with a hint at start-up): not twice.
 * NOTE: the rest goes to stderr, as knex would print it.
 */
const KNEX_LOG = {
  warn: (message: unknown) => {
    if (typeof message === 'string' && message.startsWith('Acquire connection error')) return;
    console.error(message);
  },
};

interface SqliteConnection {
  pragma(source: string): unknown;
}

/** A PostgreSQL URL without its password (in the userinfo, or as a `password=` parameter). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) if (/pass/i.test(key)) parsed.searchParams.set(key, '***');
    return parsed.toString();
  } catch {
    return 'postgres (unparsable URL)';
  }
}

/** Where a database is, for people (`using database: ...`): the SQLite file, or the URL without password. */
export function databaseLocation(config: DatabaseConfig): string {
  return config.dialect === 'sqlite' ? config.filename : redactUrl(config.url);
}
