import type { Repositories } from '../ports.js';
import type { Patrol, PatrolView, SegmentView } from './model.js';
import { groupBy } from '../group-by.js';

/** Loads what presenting patrols needs, in a fixed number of queries whatever their number. */
export async function loadPatrolViews(repos: Repositories, tenantId: string, patrols: readonly Patrol[]): Promise<PatrolView[]> {
  const ids = patrols.map((patrol) => patrol.id);
  // One after another: `repos` may be a transaction, whose one connection runs one query at a
  // time (pg deprecates queuing a query on a busy client).
  const segments = await repos.patrols.segmentsOf(tenantId, ids);
  const notes = await repos.patrols.notesOf(tenantId, ids);
  const files = await repos.patrols.filesOf(tenantId, ids);
  const updates = await repos.patrols.updatesOf(tenantId, ids);
  const segmentViews = groupBy(await loadSegmentViews(repos, tenantId, segments), (view) => view.segment.patrolId);
  const notesOf = groupBy(notes, (note) => note.patrolId);
  const filesOf = groupBy(files, (file) => file.patrolId);
  const updatesOf = groupBy(updates, (update) => update.patrolId);
  // Grouped once (each list keeps the order the repository gave): a page of patrols in linear time.
  return patrols.map((patrol) => ({
    patrol,
    segments: segmentViews.get(patrol.id) ?? [],
    notes: notesOf.get(patrol.id) ?? [],
    files: filesOf.get(patrol.id) ?? [],
    updates: updatesOf.get(patrol.id) ?? [],
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
  const typeById = new Map(types.map((type) => [type.id, type]));
  const subjectById = new Map(subjects.map((subject) => [subject.id, subject]));
  const userById = new Map(users.map((user) => [user.id, user]));
  return segments.map((segment) => {
    const subject = segment.leaderType === 'observations.subject' ? subjectById.get(segment.leaderId!) : undefined;
    const user = segment.leaderType === 'accounts.user' ? userById.get(segment.leaderId!) : undefined;
    return {
      segment,
      patrolType: (segment.patrolTypeId === null ? undefined : typeById.get(segment.patrolTypeId)) ?? null,
      leader: subject ? { type: 'observations.subject' as const, subject } : user ? { type: 'accounts.user' as const, user } : null,
      eventIds: events.get(segment.id) ?? [],
    };
  });
}
