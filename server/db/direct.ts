import type { Executor } from './rows.js';

/**
 * Statements of the hot write paths, run on the driver's own connection instead of through
 * knex's query builder: a fixed text, built once, and values as they are.
 *
 * PostgreSQL: named statements, which each connection parses and plans once. SQLite: the
 * connection's prepared-statement cache (sqlite-client.ts). The connection is one of knex's pool,
 * or the transaction's own when `db` is a transaction, so these run inside it. Each is announced
 * as knex announces its own queries (the `query` event), so whoever watches those sees them too.
 * NOTE: DEBUG=knex:query does not print them.
 */

/** A PostgreSQL statement with `$n` placeholders, under a name unique to its text. */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** `?` placeholders (as knex writes them) to PostgreSQL's `$1, $2, ...`. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

interface Pool<C> {
  acquireConnection(): Promise<C>;
  releaseConnection(connection: C): Promise<unknown>;
  emit(event: 'query', query: Record<string, unknown>): boolean;
}

async function withConnection<C extends object, T>(db: Executor, sql: string, bindings: unknown[], work: (connection: C) => T | Promise<T>): Promise<T> {
  const pool = db.client as unknown as Pool<C>;
  const connection = await pool.acquireConnection();
  try {
    const { __knexUid, __knexTxId } = connection as { __knexUid?: string; __knexTxId?: string };
    pool.emit('query', { __knexUid, __knexTxId, method: 'raw', sql, bindings });
    return await work(connection);
  } finally {
    await pool.releaseConnection(connection);
  }
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** PostgreSQL: the rows of a named statement. */
export function queryNamed(db: Executor, statement: NamedStatement, values: unknown[]): Promise<Array<Record<string, unknown>>> {
  return withConnection<PgConnection, Array<Record<string, unknown>>>(db, statement.text, values, async (connection) => (await connection.query({ ...statement, values })).rows);
}

interface SqliteStatement {
  reader: boolean;
  all(bindings: unknown[]): Array<Record<string, unknown>>;
  run(bindings: unknown[]): unknown;
}

interface SqliteConnection {
  prepare(source: string): SqliteStatement;
}

/** SQLite: the rows of a statement (none for a statement that returns none). */
export function querySqlite(db: Executor, sql: string, bindings: unknown[]): Promise<Array<Record<string, unknown>>> {
  return withConnection<SqliteConnection, Array<Record<string, unknown>>>(db, sql, bindings, (connection) => {
    const statement = connection.prepare(sql);
    if (statement.reader) return statement.all(bindings);
    statement.run(bindings);
    return [];
  });
}
