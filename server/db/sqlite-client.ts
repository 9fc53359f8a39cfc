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

export class ImmediateSqliteClient extends ClientBetterSqlite3 {
  transaction(...args: unknown[]): unknown {
    return new ImmediateTransaction(this, ...args);
  }
}
