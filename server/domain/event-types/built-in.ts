import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import type { EventType } from '../model.js';
import type { Repositories, Store } from '../ports.js';
import { writeScopes } from '../write-scope.js';
import { eventTypeKind } from './kind.js';

/**
 * The original's built-in incident type (issue 27): the web app makes an incident by posting an
 * event of type `incident_collection` (das-web-react createNewIncidentCollection) and expects
 * every site to have it. A collection: it holds other events through `contains` relationships
 * (events/relationships.ts) and has no details of its own (its schema declares no field and
 * stays open, as the original's empty v1 schema was, so a client's `event_details` is kept).
 */
export const INCIDENT_COLLECTION = 'incident_collection';

const BUILT_IN_SCHEMA = JSON.stringify({
  json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', title: 'Incident Collection', properties: {} },
  ui: { fields: {}, sections: {}, order: [], headers: {} },
});

/** The built-in type as a new row of a tenant's v2 catalog. */
export function builtInIncidentCollection(tenantId: string, now: number): EventType {
  return {
    id: randomUUID(), tenantId, value: INCIDENT_COLLECTION, display: 'Incident Collection', ordernum: null, icon: INCIDENT_COLLECTION,
    defaultPriority: 0, isActive: true, schema: BUILT_IN_SCHEMA, revision: 1, createdAt: now, updatedAt: now,
    category: '', defaultState: 'new', geometryType: 'Point', isCollection: true, readonly: false,
  };
}

export const isBuiltInEventType = (value: string): boolean => value === INCIDENT_COLLECTION;

/**
 * Seeds a tenant's built-in event type on first use (lazy and idempotent): called before an
 * event of that value is checked, it inserts the type when the tenant has no type of that value
 * at all, v2 or v1. A type the tenant changed, deactivated or took over stays as it is; one it
 * deleted comes back on the next incident. A v1 type of that value (imported EarthRanger data)
 * is the tenant's own incident type: no v2 type is seeded to shadow it (an active v2 type wins,
 * events/details.ts). A value that is not built in costs nothing.
 *
 * NOTE: seeded through the repositories, like any catalog write (catalog lock, version bump,
 * a `created` revision, the sync feed's change mark), not by a migration: a migration imports no
 * app code and so could not keep the feed and the list validators right. Seeded lazily rather
 * than for every tenant up front, so a tenant's catalog (its ETag, its feed) changes only when
 * an incident is sent.
 *
 * NOTE: in a transaction of its own, outside the request's write scope (write-scope.ts). The
 * event's details are checked against the type before the event's transaction opens, so the
 * type must exist first; and the catalog write keeps the lock order of every other catalog
 * write (the catalog lock alone, never under an event's locks). Outside the scope, its change
 * mark claims no Idempotency-Key (idempotency/claim-hook.ts): the key, or a batched push's
 * group of keys, is stored by the event's own transaction or not at all. An incident that then
 * fails (an unknown segment, a taken id) leaves the type seeded, as any later incident would.
 */
export async function ensureBuiltInEventType(deps: { store: Store; clock: Clock }, tenantId: string, value: string): Promise<void> {
  if (!isBuiltInEventType(value)) return;
  if (await hasTypeOfValue(deps.store.repos, tenantId, value)) return;
  await writeScopes.exit(() => deps.store.transaction(async (repos) => {
    await repos.catalog.lock(tenantId, eventTypeKind.catalog);
    // Checked again under the lock: a concurrent first incident may have seeded it.
    if (await hasTypeOfValue(repos, tenantId, value)) return;
    const before = await repos.catalog.version(tenantId, eventTypeKind.catalog);
    const now = Math.max(deps.clock.now(), before.lastModified);
    await insertBuiltIn(repos, builtInIncidentCollection(tenantId, now), now);
  }));
}

/** Whether the tenant has a type of that value in either catalog, active or not. */
async function hasTypeOfValue(repos: Repositories, tenantId: string, value: string): Promise<boolean> {
  return !!(await repos.eventTypes.find(tenantId, value)) || !!(await repos.eventTypesV1.find(tenantId, value));
}

async function insertBuiltIn(repos: Repositories, item: EventType, now: number): Promise<void> {
  await repos.eventTypes.insert(item);
  const snapshot = Object.fromEntries(eventTypeKind.tracked.map(({ field, apiName }) => [apiName, field === 'schema' ? JSON.parse(item.schema) : item[field]]));
  await repos.catalog.appendRevision({
    id: randomUUID(), tenantId: item.tenantId, catalog: eventTypeKind.catalog, itemId: item.id, action: 'created', time: now,
    userId: null, username: null, updatedFields: null, snapshot,
  });
  await repos.catalog.bump(item.tenantId, eventTypeKind.catalog, now);
}
