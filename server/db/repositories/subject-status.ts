import type { Knex } from 'knex';
import type { SubjectStatusUpdate } from '../../domain/ports.js';
import { type Executor, jsonColumn } from '../rows.js';

/**
 * The multi-row upsert of subject status, as a query builder (run alone, or folded into the
 * observation insert on PostgreSQL). Every SET expression reads the row as it was (SQL semantics
 * on both dialects), so position and radio state advance independently, each only forwards in
 * time. Rows go in subject order: concurrent writers lock them in one order.
 */
export function subjectStatusUpsert(db: Executor, updates: readonly SubjectStatusUpdate[]): Knex.QueryBuilder {
  const sorted = [...updates].sort((a, b) => (a.subjectId < b.subjectId ? -1 : 1));
  const newer = 'excluded.recorded_at > subject_status.recorded_at';
  const radioNewer = 'excluded.radio_recorded_at IS NOT NULL AND (subject_status.radio_recorded_at IS NULL OR excluded.radio_recorded_at > subject_status.radio_recorded_at)';
  const pick = (condition: string, column: string) => db.raw(`CASE WHEN ${condition} THEN excluded.${column} ELSE subject_status.${column} END`);
  const rows = sorted.map((u) => ({
    subject_id: u.subjectId, tenant_id: u.tenantId, source_id: u.sourceId, recorded_at: u.recordedAt, latitude: u.latitude, longitude: u.longitude,
    radio_recorded_at: u.radioRecordedAt, radio_state: u.radioState === null ? null : jsonColumn(u.radioState), updated_at: u.at,
  }));
  return db('subject_status')
    .insert(rows)
    .onConflict(['subject_id'])
    .merge({
      source_id: pick(newer, 'source_id'),
      latitude: pick(newer, 'latitude'),
      longitude: pick(newer, 'longitude'),
      // Last: the conditions above compare against the old recorded_at either way.
      recorded_at: pick(newer, 'recorded_at'),
      radio_state: pick(radioNewer, 'radio_state'),
      radio_recorded_at: pick(radioNewer, 'radio_recorded_at'),
      updated_at: db.raw('excluded.updated_at'),
    });
}
