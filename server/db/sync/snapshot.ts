/**
 * Several reads that must see one moment of the database (a feed page with its horizon, its
 * quiet check and its sums).
 *
 * - PostgreSQL: one `REPEATABLE READ READ ONLY` transaction: every statement sees the snapshot
 *   taken by the first, `pg_current_snapshot()` included. A reader never takes an xid.
 * - SQLite: NOT knex.transaction, which begins IMMEDIATE (sqlite-client.ts) and would queue
 *   behind writers. A deferred `BEGIN` on the pool's connection, held for the reads: the read
 *   snapshot is taken by the first SELECT and kept to COMMIT (WAL: writers of other processes
 *   go on meanwhile; this process's own queries wait for the connection, as they wait for any
 *   transaction).
 *
 * SQL is written with `?` placeholders (never a literal question mark).
 */
import type { Knex } from 'knex';
import type { Dialect } from '../knex.js';

export type Row = Record<string, unknown>;

export interface SnapshotReader {
  readonly dialect: Dialect;
  all(sql: string, bindings: readonly unknown[]): Promise<Row[]>;
}

interface SqliteStatement {
  all(bindings: unknown[]): Row[];
}
interface SqliteConnection {
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  inTransaction?: boolean;
}
interface Pool {
  acquireConnection(): Promise<SqliteConnection>;
  releaseConnection(connection: SqliteConnection): Promise<unknown>;
  emit(event: 'query', query: Record<string, unknown>): boolean;
}

export async function readSnapshot<T>(knex: Knex, dialect: Dialect, work: (reader: SnapshotReader) => Promise<T>): Promise<T> {
  if (dialect === 'postgres') {
    return knex.transaction(
      (trx) => work({ dialect, all: async (sql, bindings) => ((await trx.raw(sql, bindings as Knex.RawBinding[])) as { rows: Row[] }).rows }),
      { isolationLevel: 'repeatable read', readOnly: true },
    );
  }
  const pool = knex.client as unknown as Pool;
  const connection = await pool.acquireConnection();
  try {
    connection.exec('BEGIN');
    try {
      const reader: SnapshotReader = {
        dialect,
        all: async (sql, bindings) => {
          pool.emit('query', { method: 'raw', sql, bindings });
          return connection.prepare(sql).all([...bindings]);
        },
      };
      return await work(reader);
    } finally {
      // A read transaction has nothing to keep: COMMIT just ends it (and its snapshot).
      if (connection.inTransaction !== false) connection.exec('COMMIT');
    }
  } finally {
    await pool.releaseConnection(connection);
  }
}

/** `(?, ?, ...)` for a list of values (callers never pass an empty list). */
export function placeholders(count: number): string {
  return `(${new Array(count).fill('?').join(', ')})`;
}
