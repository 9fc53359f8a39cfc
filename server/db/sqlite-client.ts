/**
 * knex's better-sqlite3 client, with transactions that begin IMMEDIATE.
 *
 * NOTE: with several processes on one SQLite file (`serve --workers`, or several servers), a
 * deferred transaction (knex's `BEGIN`) that reads and then writes must upgrade its lock; if
 * another process committed since its first read, SQLite refuses the upgrade at once with
 * SQLITE_BUSY_SNAPSHOT (busy_timeout cannot help: waiting would not make its snapshot current).
 * `BEGIN IMMEDIATE` takes the write lock first, so a transaction waits its turn under
 * its turn instead. Within one process nothing changes: its single connection already
 * serialises every transaction.
 *
 * NOTE: busy_timeout makes better-sqlite3 wait synchronously, holding the whole event loop while
 * another process writes. BEGIN IMMEDIATE, where transactions wait, retries asynchronously
 * instead (busy_timeout off for that statement), so the process keeps serving meanwhile.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// knex exposes no public hook for the BEGIN statement; these are its own classes (knex 3).
type Constructor = new (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any
const ClientBetterSqlite3 = require('knex/lib/dialects/better-sqlite3/index.js') as Constructor;
const TransactionSqlite = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction.js') as Constructor;

/** As the connections' busy_timeout (knex.ts): how long BEGIN waits for another process's write. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

class ImmediateTransaction extends TransactionSqlite {
  // NOTE: run on the connection itself, not through knex's query(): knex rejects the whole
  // transaction on a failed query, and a busy BEGIN is retried here, not a failure.
  async begin(connection: { pragma(source: string): unknown; exec(source: string): unknown }): Promise<void> {
    const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
    connection.pragma('busy_timeout = 0');
    try {
      for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
        try {
          connection.exec('BEGIN IMMEDIATE');
          return;
        } catch (error) {
          if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    } finally {
      connection.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    }
  }
}

/** Prepared statements kept per connection, by SQL text (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 256;

interface PreparingConnection {
  prepare(source: string): unknown;
}

/**
 * Makes `connection.prepare(sql)` reuse the statement prepared for the same text: knex prepares
 * every query anew, and preparing costs as much as running a short query (a 100-row insert's
 * text is parsed again on every batch). Statements are reusable once run (`all`/`run` finish
 * synchronously) and SQLite re-prepares them itself after a schema change.
 */
export function cacheStatements<C extends PreparingConnection>(connection: C, size = STATEMENT_CACHE_SIZE): C {
  const prepare = connection.prepare.bind(connection);
  const statements = new Map<string, unknown>();
  connection.prepare = (source: string) => {
    let statement = statements.get(source);
    if (statement) {
      statements.delete(source);
    } else {
      statement = prepare(source);
      if (statements.size >= size) statements.delete(statements.keys().next().value!);
    }
    statements.set(source, statement);
    return statement;
  };
  return connection;
}

export class ImmediateSqliteClient extends ClientBetterSqlite3 {
  transaction(...args: unknown[]): unknown {
    return new ImmediateTransaction(this, ...args);
  }

  async acquireRawConnection(): Promise<unknown> {
    return cacheStatements((await super.acquireRawConnection()) as PreparingConnection);
  }
}
