import { isUuid } from '../ids.js';
import type { User } from '../model.js';
import type { Repositories } from '../ports.js';
import type { EventDetailsChecker } from './details.js';
import type { EventRecord, EventRelationship, EventTypeFacts, EventView, RelatedEvent } from './model.js';
import { groupBy } from '../group-by.js';

/** Longest event type value `checker.resolveType` looks up (details.ts: longer finds nothing). */
const MAX_TYPE_VALUE = 50;

/**
 * The representations of a page of events, in a fixed number of reads whatever the page size:
 * segment links, files, notes, history, the users they name, and each distinct type once.
 */
export async function loadEventViews(repos: Repositories, checker: EventDetailsChecker, tenantId: string, events: EventRecord[], options: { concurrent?: boolean } = {}): Promise<EventView[]> {
  const ids = events.map((event) => event.id);
  const reads = [
    () => repos.events.segmentIdsOf(tenantId, ids),
    () => repos.events.filesOfMany(tenantId, ids),
    () => repos.eventNotes.notesOf(tenantId, ids),
    () => repos.eventNotes.updatesOf(tenantId, ids),
    () => relatedOf(repos, tenantId, ids),
  ] as const;
  // One after another unless the caller says `repos` is the pool's (`concurrent`): a transaction
  // runs its queries on one connection.
  const [segments, files, notes, updates, related] = options.concurrent
    ? await Promise.all([reads[0](), reads[1](), reads[2](), reads[3](), reads[4]()])
    : [await reads[0](), await reads[1](), await reads[2](), await reads[3](), await reads[4]()];
  // One read of the types (icons, categories, collections) for the events and their related ones.
  const facts = await repos.events.typeFacts(tenantId, [...new Set([...events.map((event) => event.eventType), ...related.others.map((event) => event.eventType)])]);
  const collections = await collectionsOf(repos, checker, tenantId, new Set(events.map((event) => event.eventType)), facts);
  const factsOf = (event: EventRecord): EventTypeFacts => facts.get(event.eventType) ?? fallbackFacts(event.eventType);
  const others = new Map(related.others.map((event) => [event.id, event]));
  const side = (relationship: EventRelationship, otherId: string): RelatedEvent[] => {
    const other = others.get(otherId);
    return other ? [{ type: relationship.type, ordernum: relationship.ordernum, event: other, facts: factsOf(other) }] : [];
  };
  const userIds = new Set<string>();
  for (const event of events) if (event.createdByUserId) userIds.add(event.createdByUserId);
  for (const entry of [...notes, ...updates]) {
    const id = 'userId' in entry ? entry.userId : entry.createdByUserId;
    if (id) userIds.add(id);
  }
  const users = new Map<string, User>((await repos.users.findManyInTenant(tenantId, [...userIds])).map((user) => [user.id, user]));
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
    type: factsOf(event),
    contains: related.relationships.filter((r) => r.fromEventId === event.id).flatMap((r) => side(r, r.toEventId)),
    containedIn: related.relationships.filter((r) => r.toEventId === event.id).flatMap((r) => side(r, r.fromEventId)),
  }));
}

/**
 * Whether each type value names a collection, as `checker.resolveType` answers it (an active v2
 * type of that value that is a collection; a v1 type never is), the plain values from the type facts.
 * NOTE: a UUID-shaped value is resolved by id there (CatalogItemRepository.find), so it keeps
 * that path, one by one.
 */
async function collectionsOf(repos: Repositories, checker: EventDetailsChecker, tenantId: string, values: ReadonlySet<string>, facts: ReadonlyMap<string, EventTypeFacts>): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  for (const value of values) {
    if (value.length > MAX_TYPE_VALUE) out.set(value, false);
    else if (isUuid(value)) out.set(value, (await checker.resolveType(repos, tenantId, value))?.isCollection ?? false);
    // The facts' active v2 rows carry is_collection; a v1 type is never a collection.
    else out.set(value, facts.get(value)?.isCollection ?? false);
  }
  return out;
}

/** A type with no active row (removed since): its value as the icon, no category. */
export const fallbackFacts = (value: string): EventTypeFacts => ({ iconId: value, category: null, display: null, isCollection: false });

/** The relationships of a page of events and the events on their other side, in two reads. */
async function relatedOf(repos: Repositories, tenantId: string, ids: string[]): Promise<{ relationships: EventRelationship[]; others: EventRecord[] }> {
  const relationships = await repos.eventRelationships.ofEvents(tenantId, ids);
  if (relationships.length === 0) return { relationships, others: [] };
  const otherIds = new Set(relationships.flatMap((r) => [r.fromEventId, r.toEventId]));
  return { relationships, others: await repos.events.findMany(tenantId, [...otherIds]) };
}
