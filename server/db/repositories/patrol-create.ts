import type { NewPatrol } from '../../domain/patrols/ports.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { noteRow, patrolRow, segmentRow, updateRow } from './patrol-rows.js';

type Row = Record<string, unknown>;

/** Rows per statement on SQLite: far below its bound-parameter limit (16 columns a segment). */
const CHUNK = 500;

/** The tenant's counter row, created at 1 or bumped, returning the new serial. */
const bumpCounter = (db: Executor, tenantId: string) =>
  db('patrol_serials')
    .insert({ tenant_id: tenantId, last_serial: 1 })
    .onConflict('tenant_id')
    .merge({ last_serial: db.raw('patrol_serials.last_serial + 1') })
    .returning('last_serial');

/**
 * Writes a new patrol with its rows, all or nothing, and returns the serial it was given.
 *
 * PostgreSQL: one statement (a data-modifying CTE) in its own implicit transaction: no BEGIN or
 * COMMIT round trips, and the tenant's counter row is locked from inside that statement to its
 * commit and no longer, so serials follow commit order without a lock held across round trips.
 * Child rows meet their foreign keys at the end of the statement, after the patrol row exists.
 * SQLite: one writer at a time, so the counter goes first and the rows follow in one transaction
 * (the caller's, or a transaction of its own).
 */
export async function insertNewPatrol(db: Executor, dialect: Dialect, write: NewPatrol): Promise<number> {
  const { patrol } = write;
  const children: Array<[string, Row[]]> = [
    ['patrol_segments', write.segments.map(segmentRow)],
    ['patrol_notes', write.notes.map(noteRow)],
    ['patrol_updates', write.updates.map(updateRow)],
  ];
  if (dialect === 'postgres') {
    const parts = [{ name: 'serial', query: bumpCounter(db, patrol.tenantId).toSQL() }];
    for (const [table, rows] of children) if (rows.length > 0) parts.push({ name: table, query: db(table).insert(rows).toSQL() });
    const insert = db('patrols').insert({ ...patrolRow(patrol), serial_number: db.raw('(SELECT last_serial FROM serial)') }).returning('serial_number').toSQL();
    const sql = `WITH ${parts.map(({ name, query }) => `${name} AS (${query.sql})`).join(', ')} ${insert.sql}`;
    const result = (await db.raw(sql, [...parts.flatMap(({ query }) => query.bindings), ...insert.bindings])) as { rows: Array<{ serial_number: unknown }> };
    return Number(result.rows[0]!.serial_number);
  }
  const run = async (trx: Executor) => {
    const [row] = await bumpCounter(trx, patrol.tenantId);
    const serial = Number((row as { last_serial: unknown }).last_serial);
    await trx('patrols').insert({ ...patrolRow(patrol), serial_number: serial });
    for (const [table, rows] of children) for (let i = 0; i < rows.length; i += CHUNK) await trx(table).insert(rows.slice(i, i + CHUNK));
    return serial;
  };
  return db.isTransaction ? run(db) : db.transaction(run);
}
