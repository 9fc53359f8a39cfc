import type { Dialect } from './knex.js';

/** A table's columns as a JSON row set names them, with the PostgreSQL type each is read as. */
export type Columns = ReadonlyArray<readonly [name: string, postgresType: string]>;

/** `name type, ...`: the column definition list of PostgreSQL's json_to_recordset. */
export const recordsetColumns = (columns: Columns) => columns.map(([name, type]) => `${name} ${type}`).join(', ');

/**
 * `INSERT INTO table (columns) SELECT <the rows of one JSON array parameter>`: PostgreSQL's
 * json_to_recordset, SQLite's json_each (its `WHERE true` keeps an upsert clause that follows
 * unambiguous). A fixed statement text whatever the number of rows: nothing to build per row,
 * no bound-parameter limit. Values round-trip exactly (doubles as shortest JSON numbers, text
 * as strings); keys of a row that are not columns are ignored.
 */
export function insertFromJson(dialect: Dialect, table: string, columns: Columns): string {
  const names = columns.map(([name]) => name).join(', ');
  if (dialect === 'postgres') return `INSERT INTO ${table} (${names}) SELECT * FROM json_to_recordset(?::json) AS r(${recordsetColumns(columns)})`;
  return `INSERT INTO ${table} (${names}) SELECT ${columns.map(([name]) => `value ->> '$.${name}'`).join(', ')} FROM json_each(?) WHERE true`;
}
