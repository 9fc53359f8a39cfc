import type { NewPatrol } from '../../domain/patrols/ports.js';
import { type NamedStatement, numbered, queryNamed } from '../direct.js';
import { type Columns, insertFromJson, recordsetColumns } from '../json-rows.js';
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

const PATROL: Columns = [
  ['id', 'uuid'], ['tenant_id', 'uuid'], ['title', 'text'], ['objective', 'text'], ['priority', 'integer'], ['state', 'text'],
  ['segment_count', 'integer'], ['window_start', 'bigint'], ['window_end', 'bigint'], ['open_ended', 'boolean'], ['actual_start', 'bigint'],
  ['scheduled_start', 'bigint'], ['all_ended_at', 'bigint'], ['created_by_user_id', 'uuid'], ['created_at', 'bigint'], ['updated_at', 'bigint'],
];
const SEGMENT: Columns = [
  ['id', 'uuid'], ['tenant_id', 'uuid'], ['patrol_id', 'uuid'], ['patrol_type_id', 'uuid'], ['leader_type', 'text'], ['leader_id', 'uuid'],
  ['scheduled_start', 'bigint'], ['scheduled_end', 'bigint'], ['start_time', 'bigint'], ['end_time', 'bigint'], ['start_latitude', 'float8'],
  ['start_longitude', 'float8'], ['end_latitude', 'float8'], ['end_longitude', 'float8'], ['created_at', 'bigint'], ['updated_at', 'bigint'],
];
const NOTE: Columns = [
  ['id', 'uuid'], ['tenant_id', 'uuid'], ['patrol_id', 'uuid'], ['text', 'text'], ['created_by_user_id', 'uuid'],
  ['created_by_username', 'text'], ['created_at', 'bigint'], ['updated_at', 'bigint'],
];
const UPDATE: Columns = [
  ['id', 'uuid'], ['tenant_id', 'uuid'], ['patrol_id', 'uuid'], ['type', 'text'], ['message', 'text'], ['user_id', 'uuid'], ['username', 'text'], ['time', 'bigint'],
];

/**
 * PostgreSQL: new patrols of one tenant, with all their rows, in one named statement of fixed
 * text (each table's rows as one JSON parameter): bindings `[tenant, k, segments, notes, updates, k,
 * patrols]`. The counter moves by k once; patrol `ord` (1..k) gets serial `before + ord`.
 * Child rows meet their foreign keys at the end of the statement, after the patrol rows exist.
 */
const INSERT_PATROLS_POSTGRES: NamedStatement = { name: 'fieldops_patrol_create', text: numbered(`WITH serial AS (
    INSERT INTO patrol_serials (tenant_id, last_serial) VALUES (?::uuid, ?::integer)
    ON CONFLICT (tenant_id) DO UPDATE SET last_serial = patrol_serials.last_serial + excluded.last_serial RETURNING last_serial
  ),
  segments AS (${insertFromJson('postgres', 'patrol_segments', SEGMENT)}),
  notes AS (${insertFromJson('postgres', 'patrol_notes', NOTE)}),
  updates AS (${insertFromJson('postgres', 'patrol_updates', UPDATE)})
  INSERT INTO patrols (${PATROL.map(([name]) => name).join(', ')}, serial_number)
  SELECT ${PATROL.map(([name]) => `r.${name}`).join(', ')}, (SELECT last_serial FROM serial) - ?::integer + r.ord
  FROM json_to_recordset(?::json) AS r(ord integer, ${recordsetColumns(PATROL)})
  RETURNING id, serial_number`) };

/**
 * PostgreSQL: writes new patrols of one tenant with their rows, all or nothing, in one statement
 * (run in the caller's transaction, whose pre-commit hook then logs the changes), and returns
 * their serials in the order given: consecutive, after every serial committed before. The
 * tenant's counter row is locked from inside that statement to the commit, so serials follow
 * commit order; the batch's only other statements before the commit are the change log's.
 */
export async function insertNewPatrolsPostgres(db: Executor, tenantId: string, writes: readonly NewPatrol[]): Promise<number[]> {
  const patrols = writes.map((write, i) => ({ ...patrolRow(write.patrol), ord: i + 1 }));
  const all = <T>(pick: (write: NewPatrol) => T[], toRow: (value: T) => Row) => JSON.stringify(writes.flatMap((write) => pick(write).map(toRow)));
  const rows = await queryNamed(db, INSERT_PATROLS_POSTGRES, [
    tenantId, writes.length,
    all((w) => w.segments, segmentRow), all((w) => w.notes, noteRow), all((w) => w.updates, updateRow),
    writes.length, JSON.stringify(patrols),
  ]);
  const serialOf = new Map(rows.map((row) => [row.id as string, Number(row.serial_number)]));
  return writes.map((write) => serialOf.get(write.patrol.id)!);
}

/**
 * SQLite: one writer at a time, so the counter goes first and the rows follow, in the caller's
 * transaction (a unit of work's, so that its change is logged with the rows; never one of its
 * own). Returns the serial given.
 */
export async function insertNewPatrolSqlite(db: Executor, write: NewPatrol): Promise<number> {
  if (!db.isTransaction) throw new Error('a patrol create runs in a tracked transaction');
  const { patrol } = write;
  const children: Array<[string, Row[]]> = [
    ['patrol_segments', write.segments.map(segmentRow)],
    ['patrol_notes', write.notes.map(noteRow)],
    ['patrol_updates', write.updates.map(updateRow)],
  ];
  const [row] = await bumpCounter(db, patrol.tenantId);
  const serial = Number((row as { last_serial: unknown }).last_serial);
  await db('patrols').insert({ ...patrolRow(patrol), serial_number: serial });
  for (const [table, rows] of children) for (let i = 0; i < rows.length; i += CHUNK) await db(table).insert(rows.slice(i, i + CHUNK));
  return serial;
}

/** Either dialect, one patrol, unbatched (see KnexPatrolRepository for the batched path). */
export async function insertNewPatrol(db: Executor, dialect: Dialect, write: NewPatrol): Promise<number> {
  if (dialect === 'postgres') return (await insertNewPatrolsPostgres(db, write.patrol.tenantId, [write]))[0]!;
  return insertNewPatrolSqlite(db, write);
}
