import type { Repositories } from '../ports.js';

/**
 * A subject's last position (`subject_status`) is the newest fix covered by its assignments.
 * Intake moves it forward as fixes arrive; a write that moves assignments (create, move,
 * re-subject, delete; a source deleted) may take a fix away from a subject or give it one,
 * so it calls this, inside its own transaction, for every subject it touched (old and new).
 * A subject left with no covered fix has no position: its status row is kept with the position
 * cleared and `updated_at` moved, so `updated_since` pulls see the position go. Bounded: one index read per assignment
 * of each subject (repository: newestCoveredFix). Positions are not on the sync feed
 * (docs/sync.md §16), as with intake: nothing is appended to the change log.
 */
export async function recomputePositions(repos: Repositories, tenantId: string, subjectIds: Iterable<string>, now: number): Promise<void> {
  // Subject order, as intake's status upserts: concurrent writers lock rows in one order.
  const ids = [...new Set(subjectIds)].sort();
  if (ids.length === 0) return;
  await repos.subjectSources.lockStatuses(tenantId, ids);
  for (const id of ids) await repos.subjectSources.setStatusPosition(tenantId, id, await repos.subjectSources.newestCoveredFix(tenantId, id), now);
}
