/**
 * knex's better-sqlite3 client, with transactions that begin IMMEDIATE.
 *
 * NOTE: with several processes on one SQLite file (`serve --workers`, or several servers), a
 * deferred transaction (knex's `BEGIN`) that reads and then writes must upgrade its lock; if
 * another process committed since its first read, SQLite refuses the upgrade at once with
 * SQLITE_BUSY_SNAPSHOT (busy_timeout cannot help: waiting would not make its snapshot current).
 * `BEGIN IMMEDIATE` takes the write lock first, so a transaction waits its turn under
 * busy_timeout instead. Within one process nothing changes: its single connection already
 * serialises every transaction.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// knex exposes no public hook for the BEGIN statement; these are its own classes (knex 3).
type Constructor = new (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any
const ClientBetterSqlite3 = require('knex/lib/dialects/better-sqlite3/index.js') as Constructor;
const TransactionSqlite = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction.js') as Constructor;

class ImmediateTransaction extends TransactionSqlite {
  begin(connection: unknown): Promise<unknown> {
    return this.query(connection, 'BEGIN IMMEDIATE;');
  }
}

export class ImmediateSqliteClient extends ClientBetterSqlite3 {
  transaction(...args: unknown[]): unknown {
    return new ImmediateTransaction(this, ...args);
  }
}
