import { type RequestContext, requirePermission } from '../context.js';
import type { Store } from '../ports.js';
import { type EventListQuery, resolveEventFilter } from './filters.js';
import type { EventRecord, EventTypeFacts } from './model.js';
import { fallbackFacts } from './views.js';

/** A page of located events with their types' facts: what a FeatureCollection shows. */
export interface EventFeaturePage {
  total: number;
  events: EventRecord[];
  facts: ReadonlyMap<string, EventTypeFacts>;
}

/**
 * Events on the map (issue 27 §3): `activity/events/geojson` and `activity/events/count`, with
 * the list's filter (filters.ts, `bbox` included), so every filter works everywhere. Needs view_event.
 */
export class EventMapService {
  constructor(private readonly deps: { store: Store }) {}

  /** One page of the filtered events that have a location (3 reads: count, page, type facts). */
  async features(ctx: RequestContext, page: { offset: number; limit: number }, query: EventListQuery): Promise<EventFeaturePage> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    const { repos } = this.deps.store;
    const filter = await resolveEventFilter(repos, tenantId, query);
    if (filter === null) return { total: 0, events: [], facts: new Map() };
    const { total, events } = await repos.events.list(tenantId, page, undefined, { ...filter, located: true });
    const facts = new Map(await repos.events.typeFacts(tenantId, events.map((event) => event.eventType)));
    for (const event of events) if (!facts.has(event.eventType)) facts.set(event.eventType, fallbackFacts(event.eventType));
    return { total, events, facts };
  }

  async count(ctx: RequestContext, query: EventListQuery): Promise<number> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    const filter = await resolveEventFilter(this.deps.store.repos, tenantId, query);
    return filter === null ? 0 : this.deps.store.repos.events.count(tenantId, filter);
  }
}
