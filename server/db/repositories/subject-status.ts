import type { CoveredFix } from '../../domain/subjects/sources-ports.js';
import type { Dialect } from '../knex.js';
import { type Executor } from '../rows.js';
import { fromDbMillis, fromDbMillisOrNull } from '../time.js';

type Row = Record<string, unknown>;

/** A subject's assignments read for a recompute (its history is rarely more than a few). */
const MAX_ASSIGNMENTS = 1000;

/**
 * A subject's position (`subject_status`) derived again from its assignments, for writes that
 * move assignments (KnexSubjectSourceRepository delegates here). Positions are not on the sync
 * feed (docs/sync.md §16): like sensor intake, these writes append no change log; `updated_at`
 * moves with each change, as intake's does, so incremental pulls (`updated_since`) see it.
 */

/**
 * PostgreSQL: the subjects' status rows locked, in subject order (as intake's upserts take
 * them), so a concurrent intake batch waits for this transaction and then moves the position
 * forward from what it wrote, never under it. SQLite has one writer at a time already.
 */
export async function lockStatuses(db: Executor, dialect: Dialect, tenantId: string, subjectIds: readonly string[]): Promise<void> {
  if (dialect !== 'postgres' || subjectIds.length === 0) return;
  await db('subject_status').where({ tenant_id: tenantId }).whereIn('subject_id', [...subjectIds]).orderBy('subject_id').select('subject_id').forUpdate();
}

/**
 * The newest fix covered by one of the subject's assignments: per assignment, one read of the
 * (source_id, recorded_at) index, newest first, LIMIT 1. Assignments are taken latest-ending
 * first, and the walk stops once the best fix is at or after an assignment's end (nothing
 * older can beat it): usually one or two reads.
 */
export async function newestCoveredFix(db: Executor, tenantId: string, subjectId: string): Promise<CoveredFix | null> {
  const assignments = (await db('subject_sources')
    .where({ tenant_id: tenantId, subject_id: subjectId })
    .orderBy([{ column: 'range_lower', order: 'desc' }, { column: 'id' }])
    .limit(MAX_ASSIGNMENTS)
    .select('source_id', 'range_lower', 'range_upper')).map((row: Row) => ({
    sourceId: row.source_id as string,
    lower: fromDbMillis(row.range_lower),
    upper: fromDbMillisOrNull(row.range_upper),
  }));
  assignments.sort((a, b) => (b.upper ?? Infinity) - (a.upper ?? Infinity));
  let best: CoveredFix | null = null;
  for (const a of assignments) {
    if (best && a.upper !== null && a.upper <= best.recordedAt) break;
    const query = db('observations').where({ tenant_id: tenantId, source_id: a.sourceId }).andWhere('recorded_at', '>=', a.lower);
    if (a.upper !== null) query.andWhere('recorded_at', '<', a.upper);
    const row = await query.orderBy('recorded_at', 'desc').first('source_id', 'recorded_at', 'latitude', 'longitude');
    if (!row) continue;
    const fix = { sourceId: row.source_id as string, recordedAt: fromDbMillis(row.recorded_at), latitude: Number(row.latitude), longitude: Number(row.longitude) };
    // Equal times from two sources: the lower source id, so that a recompute is deterministic.
    if (!best || fix.recordedAt > best.recordedAt || (fix.recordedAt === best.recordedAt && fix.sourceId < best.sourceId)) best = fix;
  }
  return best;
}

/**
 * Sets the subject's position to `fix`. Null clears it: the row stays, its position, source and
 * radio state null and its `updated_at` moved, because the `updated_since` reads (subjects.ts,
 * sensors-subjects.ts) find changed positions only through that column; readers take a row
 * without a position as no status (`last_position` null, `tracks_available` false). The radio
 * state is kept while a position remains (it is a device's last report, and finding the newest
 * radio report again would mean scanning fixes). A row already at `fix` (or already cleared) is
 * not written (its `updated_at` stays). True when something changed.
 */
export async function setStatusPosition(db: Executor, tenantId: string, subjectId: string, fix: CoveredFix | null, at: number): Promise<boolean> {
  const current = await db('subject_status').where({ tenant_id: tenantId, subject_id: subjectId }).first('source_id', 'recorded_at', 'latitude', 'longitude');
  const positioned = Boolean(current) && current.recorded_at !== null;
  if (fix === null) {
    if (!positioned) return false;
    const cleared = { source_id: null, recorded_at: null, latitude: null, longitude: null, radio_recorded_at: null, radio_state: null };
    await db('subject_status').where({ tenant_id: tenantId, subject_id: subjectId }).update({ ...cleared, updated_at: at });
    return true;
  }
  const position = { source_id: fix.sourceId, recorded_at: fix.recordedAt, latitude: fix.latitude, longitude: fix.longitude };
  if (current) {
    const same = positioned && current.source_id === fix.sourceId && fromDbMillis(current.recorded_at) === fix.recordedAt && Number(current.latitude) === fix.latitude && Number(current.longitude) === fix.longitude;
    if (same) return false;
    await db('subject_status').where({ tenant_id: tenantId, subject_id: subjectId }).update({ ...position, updated_at: at });
    return true;
  }
  // NOTE: a row an intake batch inserted meanwhile (PostgreSQL) holds a newer fix: it stays.
  await db('subject_status').insert({ subject_id: subjectId, tenant_id: tenantId, ...position, radio_recorded_at: null, radio_state: null, updated_at: at }).onConflict('subject_id').ignore();
  return true;
}

/**
 * The subjects whose position came from the source. NOTE: subject_status has no source_id
 * index; this reads the tenant's status rows (one per subject), as the source_id foreign key's
 * ON DELETE SET NULL does anyway when the source row goes.
 */
export async function subjectsPositionedBy(db: Executor, tenantId: string, sourceId: string): Promise<string[]> {
  return (await db('subject_status').where({ tenant_id: tenantId, source_id: sourceId }).select('subject_id')).map((row: Row) => row.subject_id as string);
}
