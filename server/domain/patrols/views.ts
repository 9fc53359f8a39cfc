import type { Repositories } from '../ports.js';
import type { Patrol, PatrolView, SegmentView } from './model.js';

/** Loads what presenting patrols needs, in a fixed number of queries whatever their number. */
export async function loadPatrolViews(repos: Repositories, tenantId: string, patrols: readonly Patrol[]): Promise<PatrolView[]> {
  const ids = patrols.map((patrol) => patrol.id);
  // One after another: `repos` may be a transaction, whose one connection runs one query at a
  // time (pg deprecates queuing a query on a busy client).
  const segments = await repos.patrols.segmentsOf(tenantId, ids);
  const notes = await repos.patrols.notesOf(tenantId, ids);
  const files = await repos.patrols.filesOf(tenantId, ids);
  const updates = await repos.patrols.updatesOf(tenantId, ids);
  const segmentViews = await loadSegmentViews(repos, tenantId, segments);
  return patrols.map((patrol) => ({
    patrol,
    segments: segmentViews.filter((view) => view.segment.patrolId === patrol.id),
    notes: notes.filter((note) => note.patrolId === patrol.id),
    files: files.filter((file) => file.patrolId === patrol.id),
    updates: updates.filter((update) => update.patrolId === patrol.id),
  }));
}

export async function loadSegmentViews(repos: Repositories, tenantId: string, segments: readonly SegmentView['segment'][]): Promise<SegmentView[]> {
  const typeIds = [...new Set(segments.map((s) => s.patrolTypeId).filter((id): id is string => id !== null))];
  const subjectIds = [...new Set(segments.filter((s) => s.leaderType === 'observations.subject').map((s) => s.leaderId!))];
  const userIds = [...new Set(segments.filter((s) => s.leaderType === 'accounts.user').map((s) => s.leaderId!))];
  // Sequential for the same reason as above.
  const types = await repos.patrolTypes.findMany(tenantId, typeIds);
  const subjects = await repos.subjects.findMany(tenantId, subjectIds);
  const users = await repos.users.findManyInTenant(tenantId, userIds);
  const events = await repos.patrols.eventIdsOf(tenantId, segments.map((s) => s.id));
  return segments.map((segment) => {
    const subject = segment.leaderType === 'observations.subject' ? subjects.find((s) => s.id === segment.leaderId) : undefined;
    const user = segment.leaderType === 'accounts.user' ? users.find((u) => u.id === segment.leaderId) : undefined;
    return {
      segment,
      patrolType: types.find((type) => type.id === segment.patrolTypeId) ?? null,
      leader: subject ? { type: 'observations.subject' as const, subject } : user ? { type: 'accounts.user' as const, user } : null,
      eventIds: events.get(segment.id) ?? [],
    };
  });
}
