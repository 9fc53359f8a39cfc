import type { User } from '../model.js';
import type { Repositories } from '../ports.js';
import type { EventDetailsChecker } from './details.js';
import type { EventRecord, EventView } from './model.js';

/**
 * The representations of a page of events, in a fixed number of reads whatever the page size:
 * segment links, files, notes, history, the users they name, and each distinct type once.
 */
export async function loadEventViews(repos: Repositories, checker: EventDetailsChecker, tenantId: string, events: EventRecord[]): Promise<EventView[]> {
  const ids = events.map((event) => event.id);
  const [segments, files, notes, updates] = await Promise.all([
    repos.events.segmentIdsOf(ids),
    repos.events.filesOfMany(tenantId, ids),
    repos.eventNotes.notesOf(tenantId, ids),
    repos.eventNotes.updatesOf(tenantId, ids),
  ]);
  const userIds = new Set<string>();
  for (const event of events) if (event.createdByUserId) userIds.add(event.createdByUserId);
  for (const entry of [...notes, ...updates]) {
    const id = 'userId' in entry ? entry.userId : entry.createdByUserId;
    if (id) userIds.add(id);
  }
  const users = new Map<string, User>((await repos.users.findManyInTenant(tenantId, [...userIds])).map((user) => [user.id, user]));
  const collections = new Map<string, boolean>();
  for (const value of new Set(events.map((event) => event.eventType))) {
    collections.set(value, (await checker.resolveType(repos, tenantId, value))?.isCollection ?? false);
  }
  const notesOf = groupBy(notes, (note) => note.eventId);
  const updatesOf = groupBy(updates, (update) => update.eventId);
  return events.map((event) => ({
    event,
    segmentIds: segments.get(event.id) ?? [],
    files: files.get(event.id) ?? [],
    notes: notesOf.get(event.id) ?? [],
    updates: updatesOf.get(event.id) ?? [],
    users,
    isCollection: collections.get(event.eventType) ?? false,
  }));
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}
