import { randomUUID } from 'node:crypto';
import { createEventDetailsValidatorCache, classifyStoredDocument, preRender, type ChoiceResolver } from '../../../schema/index.js';
import type { Clock } from '../../db/time.js';
import { toFieldIssue } from '../catalog/schema-write.js';
import type { ChoiceService } from '../choices/service.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { ConflictError, InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ActivityEvent, EventFile } from '../model.js';
import type { Repositories, Store } from '../ports.js';
import { type EventInput, readEventBody } from './input.js';

export interface EventView {
  event: ActivityEvent;
  segmentIds: string[];
  files: EventFile[];
}

/**
 * Events (CONTRACT §5b): `event_details` is validated against the event type's v2 schema with
 * its choice references resolved the way the caller would see them, the root closed (no
 * undeclared fields), every problem reported with a pointer into the details.
 */
export class EventService {
  private readonly validators = createEventDetailsValidatorCache({ maxEntries: 500 });

  constructor(private readonly deps: { store: Store; clock: Clock; choices: ChoiceService }) {}

  async list(ctx: RequestContext, page: { offset: number; limit: number }, segmentId?: string) {
    const { tenantId } = requirePermission(ctx, 'view_event');
    const { repos } = this.deps.store;
    if (segmentId && !(isUuid(segmentId) && (await repos.patrols.findSegment(tenantId, segmentId.toLowerCase())))) throw new NotFoundError('No such patrol segment.');
    const { total, events } = await repos.events.list(tenantId, page, segmentId?.toLowerCase());
    return { total, views: await this.views(repos, tenantId, events) };
  }

  async get(ctx: RequestContext, id: string): Promise<EventView> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    return (await this.views(this.deps.store.repos, tenantId, [await this.find(this.deps.store.repos, tenantId, id)]))[0]!;
  }

  /** Creates an event; with `segmentId` (POST /segments/<id>/events) it is linked to that segment too. */
  async create(ctx: RequestContext, body: unknown, ownHost: string, segmentId?: string): Promise<EventView> {
    const principal = requirePermission(ctx, 'add_event');
    const { tenantId } = principal;
    // The addressed segment first: a segment of another tenant is 404 whatever the body says.
    if (segmentId && !(isUuid(segmentId) && (await this.deps.store.repos.patrols.findSegment(tenantId, segmentId.toLowerCase())))) throw new NotFoundError('No such patrol segment.');
    const input = readEventBody(body, 'create');
    const details = await this.checkDetails(ctx, tenantId, input.eventType!, input.eventDetails ?? {}, ownHost);
    return this.deps.store.transaction(async (repos) => {
      if (input.id && (await repos.events.find(tenantId, input.id))) throw new ConflictError('An event with this id already exists.');
      const type = (await repos.eventTypes.find(tenantId, input.eventType!))!;
      const now = this.deps.clock.now();
      const event: ActivityEvent = {
        id: input.id ?? randomUUID(), tenantId, eventType: type.value, title: input.title ?? type.display, time: input.time ?? now,
        latitude: input.location?.latitude ?? null, longitude: input.location?.longitude ?? null, priority: input.priority ?? type.defaultPriority,
        state: input.state ?? type.defaultState, eventDetails: details, createdByUserId: actingUser(principal)?.id ?? null,
        createdByClientId: principal.kind === 'application' ? principal.client.id : null, createdAt: now, updatedAt: now,
      };
      await repos.events.insert(event);
      await this.link(repos, tenantId, event.id, [...(input.patrolSegments ?? []), ...(segmentId ? [segmentId.toLowerCase()] : [])]);
      return (await this.views(repos, tenantId, [event]))[0]!;
    });
  }

  async update(ctx: RequestContext, id: string, body: unknown, ownHost: string): Promise<EventView> {
    const { tenantId } = requirePermission(ctx, 'change_event');
    const input = readEventBody(body, 'patch');
    const current = await this.find(this.deps.store.repos, tenantId, id);
    const eventType = input.eventType ?? current.eventType;
    const details = input.eventDetails !== undefined || input.eventType !== undefined
      ? await this.checkDetails(ctx, tenantId, eventType, input.eventDetails ?? current.eventDetails, ownHost)
      : current.eventDetails;
    // The details were checked against the type outside the transaction (rendering reads the
    // database); the fields are applied to the row as it is inside it, so no update is lost.
    const detailsChanged = input.eventDetails !== undefined || input.eventType !== undefined;
    return this.deps.store.transaction(async (repos) => {
      const fresh = await this.find(repos, tenantId, id);
      const next: ActivityEvent = {
        ...fresh,
        ...definedFields(input),
        eventType: detailsChanged ? eventType : fresh.eventType,
        eventDetails: detailsChanged ? details : fresh.eventDetails,
        latitude: input.location === undefined ? fresh.latitude : input.location?.latitude ?? null,
        longitude: input.location === undefined ? fresh.longitude : input.location?.longitude ?? null,
        updatedAt: this.deps.clock.now(),
      };
      await repos.events.update(next);
      await this.link(repos, tenantId, next.id, input.patrolSegments ?? []);
      return (await this.views(repos, tenantId, [next]))[0]!;
    });
  }

  /** The type must be an active v2 event type; the details must satisfy its rendered schema. */
  private async checkDetails(ctx: RequestContext, tenantId: string, value: string, details: Record<string, unknown>, ownHost: string): Promise<Record<string, unknown>> {
    const type = value.length <= 50 ? await this.deps.store.repos.eventTypes.find(tenantId, value) : null;
    if (!type || !type.isActive) throw InputError.field('event_type', 'unknown_event_type', `No active event type "${value}".`, ['Use the value of a type from /api/v2.0/activity/eventtypes.']);
    const stored = classifyStoredDocument(type.schema);
    if (!stored.ok || Object.keys(stored.document.json).length === 0) return details;
    const resolver: ChoiceResolver = this.deps.choices.resolverFor(ctx, ownHost, 'tenant');
    const rendered = await preRender(stored.document, resolver, { keepRootClosure: true });
    const result = this.validators.build((rendered.document as { json: unknown }).json)(details);
    if (!result.valid) throw new InputError('event_details does not satisfy the event type schema.', { event_details: result.issues.map(toFieldIssue) });
    return details;
  }

  private async link(repos: Repositories, tenantId: string, eventId: string, segmentIds: string[]): Promise<void> {
    for (const segmentId of new Set(segmentIds)) {
      if (!(await repos.patrols.findSegment(tenantId, segmentId))) throw InputError.field('patrol_segments', 'unknown_segment', `No patrol segment ${segmentId}.`, ['Link existing segments only.']);
      await repos.patrols.linkEvent(tenantId, segmentId, eventId);
    }
  }

  private async views(repos: Repositories, tenantId: string, events: ActivityEvent[]): Promise<EventView[]> {
    const segments = await repos.events.segmentIdsOf(tenantId, events.map((event) => event.id));
    return Promise.all(events.map(async (event) => ({ event, segmentIds: segments.get(event.id) ?? [], files: await repos.events.filesOf(tenantId, event.id) })));
  }

  private async find(repos: Repositories, tenantId: string, id: string): Promise<ActivityEvent> {
    const event = isUuid(id) ? await repos.events.find(tenantId, id.toLowerCase()) : null;
    if (!event) throw new NotFoundError('No such event.');
    return event;
  }
}

function definedFields(input: EventInput): Partial<ActivityEvent> {
  const fields: Partial<ActivityEvent> = {};
  if (input.title !== undefined) fields.title = input.title;
  if (input.time !== undefined) fields.time = input.time;
  if (input.priority !== undefined) fields.priority = input.priority;
  if (input.state !== undefined) fields.state = input.state;
  return fields;
}
