import { SUBJECTS_CATALOG } from '../../domain/model.js';
import type { SteadyIntakeStamp, SubjectStatusUpdate } from '../../domain/ports.js';
import type { Dialect } from '../knex.js';
import { type NamedStatement, numbered, queryNamed, querySqlite } from '../direct.js';
import { type Columns, insertFromJson } from '../json-rows.js';
import { type Executor, jsonColumn } from '../rows.js';

type Row = Record<string, unknown>;

/** 9 columns a row: 400 rows stay far below SQLite's 32766 bound parameters. */
const SQLITE_CHUNK = 400;

const OBSERVATION: Columns = [
  ['id', 'uuid'], ['tenant_id', 'uuid'], ['source_id', 'uuid'], ['subject_id', 'uuid'], ['recorded_at', 'bigint'],
  ['latitude', 'float8'], ['longitude', 'float8'], ['additional', 'text'], ['created_at', 'bigint'],
];
const STATUS: Columns = [
  ['subject_id', 'uuid'], ['tenant_id', 'uuid'], ['source_id', 'uuid'], ['recorded_at', 'bigint'], ['latitude', 'float8'],
  ['longitude', 'float8'], ['radio_recorded_at', 'bigint'], ['radio_state', 'text'], ['updated_at', 'bigint'],
];


/** A row without a position (cleared: subject-status.ts) takes any fix. */
const newer = '(subject_status.recorded_at IS NULL OR excluded.recorded_at > subject_status.recorded_at)';
const radioNewer = 'excluded.radio_recorded_at IS NOT NULL AND (subject_status.radio_recorded_at IS NULL OR excluded.radio_recorded_at > subject_status.radio_recorded_at)';
const pick = (condition: string, column: string) => `${column} = CASE WHEN ${condition} THEN excluded.${column} ELSE subject_status.${column} END`;

/**
 * Subject status moves forward only: every SET expression reads the row as it was (SQL
 * semantics on both dialects), so position and radio state advance independently, each only
 * forwards in time. A row that neither moves is not written at all: a retried or late batch
 * leaves `updated_at` (what offline pulls follow) alone, and costs PostgreSQL no new row version.
 * `postgresWhere` filters the PostgreSQL form's rows (SQLite's form ends in a WHERE of its own).
 */
const statusUpsert = (dialect: Dialect, postgresWhere = '') => `${insertFromJson(dialect, 'subject_status', STATUS)} ${postgresWhere}
  ON CONFLICT (subject_id) DO UPDATE SET ${pick(newer, 'source_id')}, ${pick(newer, 'latitude')}, ${pick(newer, 'longitude')},
  ${pick(newer, 'recorded_at')}, ${pick(radioNewer, 'radio_state')}, ${pick(radioNewer, 'radio_recorded_at')}, updated_at = excluded.updated_at
  WHERE ${newer} OR (${radioNewer})`;

/** PostgreSQL's observation insert (SQLite's goes as VALUES, below); `where` filters its rows. */
const observationInsert = (where = '') => `${insertFromJson('postgres', 'observations', OBSERVATION)} ${where}
  ON CONFLICT (source_id, recorded_at) DO NOTHING RETURNING id`;

/**
 * Whether a steady batch's stamp still holds (SteadyIntakeStamp): the tenant's subjects catalog
 * is at the stamped version, and every stamped source (a JSON array of {id, subject_id}) is the
 * tenant's and tracks the stamped subject. Parameters: tenant, version, sources, tenant.
 */
const STAMP_HOLDS = {
  postgres: `COALESCE((SELECT version FROM catalog_versions WHERE tenant_id = ? AND catalog = '${SUBJECTS_CATALOG}'), 0) = ?::bigint
    AND NOT EXISTS (SELECT 1 FROM json_to_recordset(?::json) AS e(id uuid, subject_id uuid) LEFT JOIN sensor_sources s ON s.id = e.id AND s.tenant_id = ?
      WHERE s.id IS NULL OR s.subject_id IS DISTINCT FROM e.subject_id)`,
  sqlite: `COALESCE((SELECT version FROM catalog_versions WHERE tenant_id = ? AND catalog = '${SUBJECTS_CATALOG}'), 0) = ?
    AND NOT EXISTS (SELECT 1 FROM json_each(?) AS e LEFT JOIN sensor_sources s ON s.id = e.value ->> '$.id' AND s.tenant_id = ?
      WHERE s.id IS NULL OR s.subject_id IS NOT (e.value ->> '$.subject_id'))`,
} as const;

const SQLITE_STAMP_HOLDS = `SELECT ${STAMP_HOLDS.sqlite} AS holds`;

/** PostgreSQL answers with the count of new rows: one row back, not one a row. */
const POSTGRES = {
  observations: { name: 'fieldops_observations', text: numbered(`WITH created AS (${observationInsert()}) SELECT count(*)::integer AS created FROM created`) },
  withStatus: {
    name: 'fieldops_observations_status',
    text: numbered(`WITH status AS (${statusUpsert('postgres')}), created AS (${observationInsert()}) SELECT count(*)::integer AS created FROM created`),
  },
  /**
   * The stamp checked once (an uncorrelated subquery: PostgreSQL evaluates it once, before
   * either insert), in the snapshot the inserts see; both inserts are empty unless it holds.
   */
  stamped: {
    name: 'fieldops_observations_stamped',
    text: numbered(`WITH stamp AS (SELECT ${STAMP_HOLDS.postgres} AS holds),
      status AS (${statusUpsert('postgres', 'WHERE (SELECT holds FROM stamp)')}),
      created AS (${observationInsert('WHERE (SELECT holds FROM stamp)')})
      SELECT (SELECT holds FROM stamp) AS holds, (SELECT count(*)::integer FROM created) AS created`),
  },
} satisfies Record<string, NamedStatement>;

const SQLITE_STATUS = statusUpsert('sqlite');
const SQLITE_NAMES = OBSERVATION.map(([name]) => name);
const SQLITE_ROW = `(${SQLITE_NAMES.map(() => '?').join(', ')})`;
/** The observation insert for n rows, as plain bound parameters (see below), built once per n. */
const sqliteInserts = new Map<number, string>();
const sqliteInsert = (rows: number) => {
  let sql = sqliteInserts.get(rows);
  if (!sql) {
    sql = `INSERT INTO observations (${SQLITE_NAMES.join(', ')}) VALUES ${Array(rows).fill(SQLITE_ROW).join(', ')} ON CONFLICT (source_id, recorded_at) DO NOTHING RETURNING id`;
    if (sqliteInserts.size < 64) sqliteInserts.set(rows, sql);
  }
  return sql;
};

/**
 * A batch of observation rows (sorted by the caller) and its subject status updates, all or
 * nothing, whatever its size; returns how many observations were new. Status rows go in subject
 * order: concurrent writers lock in one order. Both dialects run fixed statement texts on the
 * driver's connection (direct.ts): nothing built by knex per row.
 * PostgreSQL: one named statement, each table's rows as one JSON parameter rather than nine
 * bound parameters a row (nothing to parse and plan per batch, no parameter limit), the status
 * upsert as a data-modifying CTE. NOTE: PostgreSQL does not promise in which order a
 * statement's data-modifying parts run, so two batches may still deadlock on rows both touch;
 * PostgreSQL then aborts one, which is a 503 (db/errors.ts) that the sender retries, with
 * nothing of that batch stored.
 * SQLite: the observation insert, then the status upsert, in the caller's transaction or one of
 * its own.
 */
export async function insertObservationBatch(db: Executor, dialect: Dialect, rows: readonly Row[], statuses: readonly SubjectStatusUpdate[]): Promise<number> {
  const statusRows = statusRowsOf(statuses);
  if (dialect === 'postgres') {
    const [result] = statusRows.length > 0
      ? await queryNamed(db, POSTGRES.withStatus, [JSON.stringify(statusRows), JSON.stringify(rows)])
      : await queryNamed(db, POSTGRES.observations, [JSON.stringify(rows)]);
    return result!.created as number;
  }
  const run = (trx: Executor) => insertSqlite(trx, rows, statusRows);
  const statements = Math.ceil(rows.length / SQLITE_CHUNK) + (statusRows.length > 0 ? 1 : 0);
  return db.isTransaction || statements <= 1 ? run(db) : db.transaction(run);
}

/**
 * insertObservationBatch while `stamp` holds (SteadyIntakeStamp), checked atomically with the
 * writes; null, with nothing written, when it does not. PostgreSQL: one named statement.
 * SQLite: the check and the writes in one transaction (its writers take turns).
 */
export async function insertStampedObservationBatch(db: Executor, dialect: Dialect, rows: readonly Row[], statuses: readonly SubjectStatusUpdate[], stamp: SteadyIntakeStamp): Promise<number | null> {
  const sources = JSON.stringify(stamp.sources.map((source) => ({ id: source.id, subject_id: source.subjectId })));
  const holds = [stamp.tenantId, stamp.subjectsVersion, sources, stamp.tenantId];
  const statusRows = statusRowsOf(statuses);
  if (dialect === 'postgres') {
    const [result] = await queryNamed(db, POSTGRES.stamped, [...holds, JSON.stringify(statusRows), JSON.stringify(rows)]);
    return result!.holds ? (result!.created as number) : null;
  }
  const run = async (trx: Executor) => {
    const [check] = await querySqlite(trx, SQLITE_STAMP_HOLDS, holds);
    return check!.holds ? insertSqlite(trx, rows, statusRows) : null;
  };
  return db.isTransaction ? run(db) : db.transaction(run);
}

/** Status rows in subject order: concurrent writers lock them in one order. */
function statusRowsOf(statuses: readonly SubjectStatusUpdate[]): Row[] {
  return [...statuses]
    .sort((a, b) => (a.subjectId < b.subjectId ? -1 : 1))
    .map((u) => ({
      subject_id: u.subjectId, tenant_id: u.tenantId, source_id: u.sourceId, recorded_at: u.recordedAt, latitude: u.latitude, longitude: u.longitude,
      radio_recorded_at: u.radioRecordedAt, radio_state: u.radioState === null ? null : jsonColumn(u.radioState), updated_at: u.at,
    }));
}

/**
 * SQLite: the observation rows, then the status upsert, on `trx` (a transaction, or a lone
 * statement). NOTE: SQLite binds plain parameters faster than it reads json_each (measured), so
 * its observation rows go as VALUES, in chunks below its bound-parameter limit.
 */
async function insertSqlite(trx: Executor, rows: readonly Row[], statusRows: readonly Row[]): Promise<number> {
  let created = 0;
  for (let i = 0; i < rows.length; i += SQLITE_CHUNK) {
    const chunk = rows.slice(i, i + SQLITE_CHUNK);
    const bindings: unknown[] = [];
    for (const row of chunk) for (const name of SQLITE_NAMES) bindings.push(row[name] ?? null);
    created += (await querySqlite(trx, sqliteInsert(chunk.length), bindings)).length;
  }
  if (statusRows.length > 0) await querySqlite(trx, SQLITE_STATUS, [JSON.stringify(statusRows)]);
  return created;
}
