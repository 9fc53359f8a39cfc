/**
 * The change log's hot statements (every write transaction runs them, server/db/sync/append.ts
 * and members.ts): plain SQL with `?` placeholders, the same text on both dialects, run without
 * knex's query builder. SQLite: on the transaction's own connection through its prepared-statement
 * cache (server/db/direct.ts), synchronously. PostgreSQL: as a raw query of the transaction.
 */
import { querySqlite } from '../direct.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';

export type Row = Record<string, unknown>;

/** Rows of a statement (none for one without RETURNING). */
export async function run(db: Executor, dialect: Dialect, sql: string, bindings: unknown[]): Promise<Row[]> {
  if (dialect === 'sqlite') return querySqlite(db, sql, bindings);
  const result = (await db.raw(sql, bindings as Array<string | number>)) as { rows?: Row[] };
  return result.rows ?? [];
}

/** `(?, ?, ?)` for `width` values. */
export const tuple = (width: number) => `(${Array(width).fill('?').join(', ')})`;

/** `?, ?, ?` for an IN list of `n`. */
export const list = (n: number) => Array(n).fill('?').join(', ');

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
