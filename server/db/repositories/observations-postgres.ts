import type { SubjectStatusUpdate } from '../../domain/ports.js';
import { type Executor, jsonColumn } from '../rows.js';

type Row = Record<string, unknown>;

const OBSERVATION_COLUMNS = 'id uuid, tenant_id uuid, source_id uuid, subject_id uuid, recorded_at bigint, latitude float8, longitude float8, additional text, created_at bigint';
const STATUS_COLUMNS = 'subject_id uuid, tenant_id uuid, source_id uuid, recorded_at bigint, latitude float8, longitude float8, radio_recorded_at bigint, radio_state text, updated_at bigint';
const names = (columns: string) => columns.split(', ').map((column) => column.split(' ')[0]).join(', ');

const newer = 'excluded.recorded_at > subject_status.recorded_at';
const radioNewer = 'excluded.radio_recorded_at IS NOT NULL AND (subject_status.radio_recorded_at IS NULL OR excluded.radio_recorded_at > subject_status.radio_recorded_at)';
const pick = (condition: string, column: string) => `${column} = CASE WHEN ${condition} THEN excluded.${column} ELSE subject_status.${column} END`;

/** The status upsert of subject-status.ts, its rows from one JSON parameter (same rules, same order). */
const STATUS_UPSERT = `INSERT INTO subject_status (${names(STATUS_COLUMNS)})
  SELECT * FROM json_to_recordset(?::json) AS s(${STATUS_COLUMNS})
  ON CONFLICT (subject_id) DO UPDATE SET ${pick(newer, 'source_id')}, ${pick(newer, 'latitude')}, ${pick(newer, 'longitude')},
  ${pick(newer, 'recorded_at')}, ${pick(radioNewer, 'radio_state')}, ${pick(radioNewer, 'radio_recorded_at')}, updated_at = excluded.updated_at`;

const OBSERVATION_INSERT = `INSERT INTO observations (${names(OBSERVATION_COLUMNS)})
  SELECT * FROM json_to_recordset(?::json) AS o(${OBSERVATION_COLUMNS})
  ON CONFLICT (source_id, recorded_at) DO NOTHING RETURNING id`;

/**
 * A batch on PostgreSQL: one statement whatever its size, the rows of each table passed as one
 * JSON parameter (json_to_recordset) rather than nine bound parameters a row: the statement
 * text is fixed, so neither knex nor the server parses and plans hundreds of placeholders per
 * batch. The status upsert rides along as a data-modifying CTE. Rows keep the caller's order
 * (json_to_recordset returns them in array order), so concurrent writers lock in one order.
 * NOTE: PostgreSQL runs an unreferenced data-modifying CTE after the main statement, so the
 * lock order is observations first, then statuses, as in the two-statement path of SQLite.
 */
export async function insertBatchPostgres(db: Executor, rows: readonly Row[], statuses: readonly SubjectStatusUpdate[]): Promise<number> {
  const statusRows = [...statuses]
    .sort((a, b) => (a.subjectId < b.subjectId ? -1 : 1))
    .map((u) => ({
      subject_id: u.subjectId, tenant_id: u.tenantId, source_id: u.sourceId, recorded_at: u.recordedAt, latitude: u.latitude, longitude: u.longitude,
      radio_recorded_at: u.radioRecordedAt, radio_state: u.radioState === null ? null : jsonColumn(u.radioState), updated_at: u.at,
    }));
  const result = statusRows.length > 0
    ? await db.raw(`WITH status AS (${STATUS_UPSERT}) ${OBSERVATION_INSERT}`, [JSON.stringify(statusRows), JSON.stringify(rows)])
    : await db.raw(OBSERVATION_INSERT, [JSON.stringify(rows)]);
  return (result as { rows: unknown[] }).rows.length;
}
