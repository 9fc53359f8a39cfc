import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SubjectMetadata, TrackingRow } from './formats.js';
import type { SubjectPageFilter, TrackAssignment, TrackRepository, TrackSubject } from './ports.js';
import { type TimeRange, clip } from './query.js';

/**
 * The exports' walks (issue 27), as async generators: subjects in keyset pages, each subject's
 * assignments, each assignment's fixes in keyset batches on (source_id, recorded_at). Nothing
 * holds more than one page of subjects and one batch of fixes; after every batch the walk
 * yields the event loop (a synchronous driver, better-sqlite3, would otherwise hold it for the
 * whole export), and a consumer that stops reading (backpressure) stops the walk.
 */

export const SUBJECT_PAGE = 200;
/**
 * Fixes per keyset read. Small on purpose: the batch in flight (driver rows, records, its CSV
 * text) is what a young-generation collection finds alive and promotes, and that promoted
 * garbage is what grows the server's RSS over a long export (1,000,000 rows on PostgreSQL
 * peaked above 200 MB with 500); a read of 200 by the (source_id, recorded_at) index costs
 * well under a millisecond.
 */
export const OBSERVATION_BATCH = 200;

export interface TrackingFilter {
  subjects: SubjectPageFilter;
  sourceId: string | null;
  range: TimeRange;
  /** At most this many rows (null: all). */
  maxRecords: number | null;
  /** Each subject's latest position only (er-client's `current_status`). */
  currentStatus: boolean;
}

async function* subjectPages(repo: TrackRepository, tenantId: string, filter: SubjectPageFilter): AsyncGenerator<TrackSubject[]> {
  let after: string | null = null;
  for (;;) {
    const page = await repo.subjectsPage(tenantId, filter, after, SUBJECT_PAGE);
    if (page.length === 0) return;
    yield page;
    if (page.length < SUBJECT_PAGE) return;
    after = page[page.length - 1]!.id;
    await nextTurn();
  }
}

function bySubject(assignments: readonly TrackAssignment[]): Map<string, TrackAssignment[]> {
  const grouped = new Map<string, TrackAssignment[]>();
  for (const a of assignments) (grouped.get(a.subjectId) ?? grouped.set(a.subjectId, []).get(a.subjectId)!).push(a);
  return grouped;
}

/** Rows of the tracking-data export, in batches: by subject id, then assignment, then time. */
export async function* trackingBatches(repo: TrackRepository, tenantId: string, filter: TrackingFilter): AsyncGenerator<TrackingRow[]> {
  let left = filter.maxRecords ?? Number.POSITIVE_INFINITY;
  for await (const page of subjectPages(repo, tenantId, filter.subjects)) {
    if (filter.currentStatus) {
      const rows = page.flatMap((subject): TrackingRow[] => {
        const at = subject.lastPosition;
        if (!at || at.recordedAt < filter.range.from || at.recordedAt >= filter.range.to) return [];
        return [{ subject, assignment: null, observation: { id: '', recordedAt: at.recordedAt, latitude: at.latitude, longitude: at.longitude, additional: '{}' } }];
      }).slice(0, left);
      left -= rows.length;
      if (rows.length) yield rows;
      if (left <= 0) return;
      continue;
    }
    const assignments = bySubject(await repo.assignmentsOf(tenantId, page.map((s) => s.id), filter.sourceId));
    for (const subject of page) {
      for (const assignment of assignments.get(subject.id) ?? []) {
        const window = clip(filter.range, assignment.rangeLower, assignment.rangeUpper);
        if (!window) continue;
        let after: number | null = null;
        for (;;) {
          const batch = await repo.observationBatch(tenantId, { sourceId: assignment.sourceId, ...window }, after, Math.min(OBSERVATION_BATCH, left));
          if (batch.length === 0) break;
          left -= batch.length;
          yield batch.map((observation) => ({ subject, assignment, observation }));
          if (left <= 0) return;
          await nextTurn();
          if (batch.length < OBSERVATION_BATCH) break;
          after = batch[batch.length - 1]!.recordedAt;
        }
      }
    }
  }
}

/** Subjects with their assignments (and sources), a page at a time. */
export async function* metadataBatches(repo: TrackRepository, tenantId: string, filter: SubjectPageFilter): AsyncGenerator<SubjectMetadata[]> {
  for await (const page of subjectPages(repo, tenantId, filter)) {
    const assignments = bySubject(await repo.assignmentsOf(tenantId, page.map((s) => s.id), null));
    yield page.map((subject) => ({ subject, assignments: assignments.get(subject.id) ?? [] }));
  }
}

/** Every subject of the filter, a page at a time (the KML feed and the last positions). */
export { subjectPages };
