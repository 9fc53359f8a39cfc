import type { Knex } from 'knex';

/** Helpers shared by the repositories: JSON text columns and the executor type. */
export type Executor = Knex | Knex.Transaction;

export function parseJsonColumn<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value !== 'string') return value as T;
  return JSON.parse(value) as T;
}

export function jsonColumn(value: unknown): string {
  return JSON.stringify(value);
}
