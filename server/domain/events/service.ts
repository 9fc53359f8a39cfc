import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { strongEtag } from '../catalog/etag.js';
import { type WritePrecondition } from '../client-input.js';
import type { ChoiceService } from '../choices/service.js';
import { type Principal, type RequestContext, actingUser, requirePermission } from '../context.js';
import { ConflictError, DomainError, type FieldIssue, InputError, NotFoundError, PreconditionFailedError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ActivityEvent, User } from '../model.js';
import type { Repositories, Store } from '../ports.js';
import { EventDetailsChecker, type ResolvedEventType } from './details.js';
import { type EventListQuery, resolveEventFilter } from './filters.js';
import { type EventInput, readEventBody } from './input.js';
import type { EventListFilter, EventRecord, EventView, EventWrite } from './model.js';
import { RecordedDetailsRenderer, type RenderMode } from './render.js';
import { loadEventViews } from './views.js';
import { EventNoteService } from './notes.js';
import { EventFileService } from './files.js';
import { EventRelationshipService } from './relationships.js';
import { EventMapService } from './map.js';
import { ensureBuiltInEventType } from '../event-types/built-in.js';
import { ChangedSinceBaseError } from '../merge/errors.js';
import { mergeEventUpdate, proposeEvent } from '../merge/event-update.js';
import { applyEventFields, flattenEvent } from '../merge/fields-event.js';
import { ConflictStaleError } from '../merge/errors.js';
import type { SettledChange } from '../merge/conflicts.js';
import { recordRevision } from '../merge/history.js';
import { sameValue } from '../../../protocol/merge-fields.js';
import { finishMerge, outcomeRevision, planMerge, replayedOutcome } from '../merge/record-merge.js';
import type { FileStore } from '../../storage/file-store.js';
import type { FileRemovals } from '../../storage/file-sweeper.js';

export type { EventView } from './model.js';

/** The ETag of an event: its revision, which every change to it, its notes or files moves. */
export function eventEtag(event: EventRecord): string {
  return strongEtag('event', event.tenantId, event.id, event.revision);
}

/**
 * Events (CONTRACT §5b, §11). `event_details` is validated against the event's type (v2, or a
 * v1 type's rendered draft-04 schema). Every write runs in one transaction with its history
 * entry; a client may supply the id (a duplicate is 409, for offline retries); `If-Match` on
 * PATCH and DELETE compares the event's ETag, and the write is a compare-and-set on the
 * revision, so of two writers holding one tag exactly one wins.
 * DELETE needs `delete_event` (as the other families' deletes need theirs).
 */
export class EventService {
  readonly checker: EventDetailsChecker;
  /** The notes and files of events (`activity/event/<id>/notes`, `/files/`). */
  readonly notes: EventNoteService;
  readonly files: EventFileService;
  /** Incidents: `activity/event/<id>/relationships`. */
  readonly relationships: EventRelationshipService;
  /** Events on the map: `activity/events/geojson`, `activity/events/count`. */
  readonly map: EventMapService;

  /**
   * `maxFileBytes`: event file uploads larger than this are 413. `removals`: told, after a
   * deletion commits, which stored bytes may have lost their last reference.
   */
  constructor(private readonly deps: { store: Store; clock: Clock; choices: ChoiceService; files: FileStore; removals: FileRemovals; maxFileBytes: number }) {
    this.checker = new EventDetailsChecker(deps.choices);
    this.notes = new EventNoteService({ store: deps.store, clock: deps.clock, events: this });
    this.map = new EventMapService({ store: deps.store });
    this.relationships = new EventRelationshipService({ store: deps.store, clock: deps.clock, events: this });
    this.files = new EventFileService({ store: deps.store, clock: deps.clock, files: deps.files, removals: deps.removals, events: this, maxFileBytes: deps.maxFileBytes });
  }

  /** `render`: also the details as recorded (events/render.ts); absent, nothing more is read. */
  async list(ctx: RequestContext, page: { offset: number; limit: number }, segmentId?: string, query?: EventListQuery, render?: RenderMode) {
    const { tenantId } = requirePermission(ctx, 'view_event');
    const { repos } = this.deps.store;
    if (segmentId && !(isUuid(segmentId) && (await repos.patrols.findSegment(tenantId, segmentId.toLowerCase())))) throw new NotFoundError('No such patrol segment.');
    const filter = query ? await this.resolveFilter(repos, tenantId, query) : undefined;
    if (filter === null) return { total: 0, views: [] as EventView[] };
    const { total, events } = await repos.events.list(tenantId, page, segmentId?.toLowerCase(), filter);
    return { total, views: await this.rendered(ctx, await loadEventViews(repos, this.checker, tenantId, events), render) };
  }

  /** The stored event (cheap: one read), for validators before the representation is loaded. */
  async head(ctx: RequestContext, id: string): Promise<EventRecord> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    return this.find(this.deps.store.repos, tenantId, id);
  }

  async view(ctx: RequestContext, event: EventRecord, render?: RenderMode): Promise<EventView> {
    requirePermission(ctx, 'view_event');
    return (await this.rendered(ctx, await loadEventViews(this.deps.store.repos, this.checker, event.tenantId, [event]), render))[0]!;
  }

  async get(ctx: RequestContext, id: string, render?: RenderMode): Promise<EventView> {
    return this.view(ctx, await this.head(ctx, id), render);
  }

  /** The views with `renderedDetails` when `render` asks for them (one renderer: one fold per type and revision). */
  private async rendered(ctx: RequestContext, views: EventView[], render: RenderMode | undefined): Promise<EventView[]> {
    if (render !== 'as_recorded' || views.length === 0) return views;
    const { tenantId } = requirePermission(ctx, 'view_event');
    // Choice displays as choices.json answers this caller (a list it may not read shows values).
    const renderer = new RecordedDetailsRenderer(this.deps.store.repos, tenantId, this.deps.choices.resolverFor(ctx));
    const rendered = await renderer.render(views.map((view) => view.event));
    return views.map((view) => ({ ...view, renderedDetails: rendered.get(view.event.id) ?? [] }));
  }

  /** Creates an event; with `segmentId` (POST /segments/<id>/events) it is linked to that segment too. */
  async create(ctx: RequestContext, body: unknown, segmentId?: string): Promise<EventView> {
    const principal = requirePermission(ctx, 'add_event');
    const { tenantId } = principal;
    // The addressed segment first: a segment of another tenant is 404 whatever the body says.
    if (segmentId && !(isUuid(segmentId) && (await this.deps.store.repos.patrols.findSegment(tenantId, segmentId.toLowerCase())))) throw new NotFoundError('No such patrol segment.');
    const input = readEventBody(body, 'create');
    const details = input.eventDetails ?? {};
    const type = await this.checkDetails(tenantId, input.eventType!, details);
    return this.deps.store.transaction(async (repos) => {
      if (input.id && (await repos.events.find(tenantId, input.id))) throw new ConflictError('An event with this id already exists.');
      const now = this.deps.clock.now();
      const event: EventWrite = {
        id: input.id ?? randomUUID(), tenantId, eventType: type.value, title: input.title ?? type.display, time: input.time ?? now,
        latitude: input.location?.latitude ?? null, longitude: input.location?.longitude ?? null, priority: input.priority ?? type.defaultPriority,
        state: input.state ?? type.defaultState, eventDetails: details, createdByUserId: actingUser(principal)?.id ?? null,
        createdByClientId: principal.kind === 'application' ? principal.client.id : null, createdAt: now, updatedAt: now,
        // The revision the details were checked against (details.ts), not one read now.
        schemaRevision: type.schemaRevision,
      };
      await repos.events.insert(event);
      await this.record(repos, principal, event.id, 'add_event', 'Created', now);
      await this.link(repos, tenantId, event.id, [...(input.patrolSegments ?? []), ...(segmentId ? [segmentId.toLowerCase()] : [])]);
      for (const text of input.notes ?? []) await this.addNote(repos, principal, event.id, text, now);
      await repos.events.assignSerialNumber(tenantId, event.id);
      return (await loadEventViews(repos, this.checker, tenantId, [(await repos.events.find(tenantId, event.id))!]))[0]!;
    });
  }

  /**
   * Creates events in one transaction, all or none: the array form of POST events and the batched
   * push's runs of creates (issue 26 §4). Every body is read and its details checked first, outside
   * the transaction; invalid ones throw one `EventBatchInputError` naming each by index. A client id
   * that exists (or repeats) is a 409 for the whole call. `inTransaction` runs inside it, after the
   * inserts, before the commit.
   */
  async createMany(ctx: RequestContext, bodies: readonly unknown[], inTransaction?: (repos: Repositories, views: EventView[]) => Promise<void>): Promise<EventView[]> {
    const principal = requirePermission(ctx, 'add_event');
    const { tenantId } = principal;
    const prepared: Array<{ input: EventInput; type: ResolvedEventType }> = [];
    const invalid = new Map<number, DomainError>();
    for (const [index, body] of bodies.entries()) {
      try {
        const input = readEventBody(body, 'create');
        prepared.push({ input, type: await this.checkDetails(tenantId, input.eventType!, input.eventDetails ?? {}) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        invalid.set(index, error);
      }
    }
    if (invalid.size > 0) throw new EventBatchInputError(invalid);
    return this.deps.store.transaction(async (repos) => {
      const now = this.deps.clock.now();
      const ids: string[] = [];
      // Each event is recorded against the revision its own details were checked against.
      for (const { input, type } of prepared) {
        if (input.id && (await repos.events.find(tenantId, input.id))) throw new ConflictError(`An event with id ${input.id} already exists.`);
        const event: EventWrite = {
          id: input.id ?? randomUUID(), tenantId, eventType: type.value, title: input.title ?? type.display, time: input.time ?? now,
          latitude: input.location?.latitude ?? null, longitude: input.location?.longitude ?? null, priority: input.priority ?? type.defaultPriority,
          state: input.state ?? type.defaultState, eventDetails: input.eventDetails ?? {}, createdByUserId: actingUser(principal)?.id ?? null,
          createdByClientId: principal.kind === 'application' ? principal.client.id : null, createdAt: now, updatedAt: now,
          schemaRevision: type.schemaRevision,
        };
        await repos.events.insert(event);
        await this.record(repos, principal, event.id, 'add_event', 'Created', now);
        await this.link(repos, tenantId, event.id, input.patrolSegments ?? []);
        for (const text of input.notes ?? []) await this.addNote(repos, principal, event.id, text, now);
        await repos.events.assignSerialNumber(tenantId, event.id);
        ids.push(event.id);
      }
      // One query at a time: a transaction is one connection.
      const records: EventRecord[] = [];
      for (const id of ids) records.push((await repos.events.find(tenantId, id))!);
      const views = await loadEventViews(repos, this.checker, tenantId, records);
      await inTransaction?.(repos, views);
      return views;
    });
  }

  /**
   * PATCH. With a base revision (`pre.base`) the update is merged field by field against what
   * changed since (domain/merge): fields changed on both sides become conflicts kept with both
   * values, settled by the tenant's policy. Without one it is a blind write, as the original's
   * clients send. Either way the revision's history row is written with it, and a request whose
   * Idempotency-Key wrote a revision already is a replay that writes nothing.
   */
  async update(ctx: RequestContext, id: string, body: unknown, pre: WritePrecondition = {}): Promise<EventView> {
    const principal = requirePermission(ctx, 'change_event');
    const input = readEventBody(body, 'patch');
    // The details are checked outside the transaction (rendering reads the database) against the
    // row as read then. When the row moved before the write, the check is redone on the new row
    // (three tries, then 412), so a concurrent change of type or details is never overwritten.
    for (let attempt = 1; ; attempt++) {
      const updated = await this.updateOnce(principal, id, input, pre, attempt < 3);
      if (updated) return updated;
    }
  }

  /** One try of `update`; null when the details were checked (or merged) on a row that changed since (and `mayRetry`). */
  private async updateOnce(principal: Principal, id: string, input: EventInput, pre: WritePrecondition, mayRetry: boolean): Promise<EventView | null> {
    const { tenantId } = principal;
    const current = await this.find(this.deps.store.repos, tenantId, id);
    if (input.id && input.id !== current.id) throw InputError.field('id', 'mismatch', 'The body id differs from the URL.', ['Leave id out, or send the same one.']);
    const check = (eventType: string, details: Record<string, unknown>) => this.checkDetails(tenantId, eventType, details);
    const merged = pre.base ? await mergeEventUpdate(this.deps.store.repos, current, input, pre, check) : null;
    const detailsChanged = input.eventDetails !== undefined || (input.eventType !== undefined && input.eventType !== current.eventType);
    const type = merged ? merged.type : detailsChanged ? await check(input.eventType ?? current.eventType, input.eventDetails ?? current.eventDetails) : null;
    return this.deps.store.transaction(async (repos) => {
      const fresh = await this.find(repos, tenantId, id);
      if (pre.ifMatch && !pre.ifMatch(eventEtag(fresh))) throw new PreconditionFailedError('The event has changed since that ETag (If-Match).');
      if ((type || merged) && fresh.revision !== current.revision) {
        if (mayRetry) return null;
        throw new PreconditionFailedError('The event kept changing while this update was merged or its details checked; read it again.');
      }
      const plan = merged?.plan ?? await planMerge(repos, { kind: 'event', tenantId, id: fresh.id, revision: fresh.revision, current: flattenEvent(fresh), mine: new Map(), pre: {} });
      if (plan.result.status === 'replayed') {
        await replayedOutcome(repos, { kind: 'event', tenantId, id: fresh.id, revision: fresh.revision, outcome: { kind: 'event', id: fresh.id } });
        return (await loadEventViews(repos, this.checker, tenantId, [fresh]))[0]!;
      }
      const now = this.deps.clock.now();
      const chosen = merged ? merged.target : proposeEvent(fresh, input);
      // The details (or the type) were checked: they are now recorded against the revision that checked them.
      const recorded = type ? { schemaRevision: type.schemaRevision } : {};
      const next: ActivityEvent = { ...chosen, eventType: type ? type.value : merged ? chosen.eventType : fresh.eventType, updatedAt: now, ...recorded };
      if (!(await repos.events.update(next, fresh.revision))) throw new PreconditionFailedError('The event changed while this request was applied; read it again.');
      const { lines } = await finishMerge(repos, principal, {
        kind: 'event', tenantId, id: next.id, outcome: { kind: 'event', id: next.id }, revision: fresh.revision + 1, plan, before: flattenEvent(fresh), after: flattenEvent(next), at: now,
      });
      const changed = changedFields(fresh, next);
      if (next.state !== fresh.state) await this.record(repos, principal, next.id, 'update_event_state', `Changed State: ${fresh.state} → ${next.state}`, now);
      const others = changed.filter((field) => field !== 'state');
      if (others.length) await this.record(repos, principal, next.id, 'update_event', `Updated fields: ${others.join(', ')}`, now);
      for (const line of lines) await this.record(repos, principal, next.id, 'update_event', line, now);
      await this.link(repos, tenantId, next.id, input.patrolSegments ?? []);
      for (const text of input.notes ?? []) await this.addNote(repos, principal, next.id, text, now);
      const stored = (await repos.events.find(tenantId, next.id))!;
      outcomeRevision(stored.revision);
      return (await loadEventViews(repos, this.checker, tenantId, [stored]))[0]!;
    });
  }

  /**
   * DELETE. With a base revision, a record that changed since it is refused
   * (`changed_since_base`): a delete never drops a change its sender did not see.
   */
  async delete(ctx: RequestContext, id: string, pre: WritePrecondition = {}): Promise<void> {
    const { ifMatch } = pre;
    const { tenantId } = requirePermission(ctx, 'delete_event');
    const released = await this.deps.store.transaction(async (repos) => {
      const current = await this.find(repos, tenantId, id);
      if (ifMatch && !ifMatch(eventEtag(current))) throw new PreconditionFailedError('The event has changed since that ETag (If-Match).');
      if (pre.base && current.revision > pre.base.revision) {
        throw new ChangedSinceBaseError(`The event changed since revision ${pre.base.revision} (it is at ${current.revision}); read it again before deleting it.`, current.revision);
      }
      const files = await repos.events.filesOf(tenantId, current.id);
      await repos.events.delete(tenantId, current.id);
      await repos.revisions.deleteOf(tenantId, 'event', current.id);
      await repos.conflicts.deleteOf(tenantId, 'event', current.id);
      return files.map((file) => file.sha256);
    });
    // Committed: the files' bytes go unless another row (of any tenant) still refers to them.
    await this.deps.removals.released(released);
  }

  /**
   * Writes one merge field as a settled revision (a conflict resolved with the value that does
   * not stand; domain/merge/conflicts.ts), while the field still holds `change.standing`.
   */
  async writeSettled(ctx: RequestContext, id: string, change: SettledChange): Promise<number> {
    const principal = requirePermission(ctx, 'change_event');
    const { tenantId } = principal;
    for (let attempt = 1; ; attempt++) {
      const current = await this.find(this.deps.store.repos, tenantId, id);
      const before = flattenEvent(current);
      const now = before.get(change.path) ?? null;
      if (!sameValue(now, change.standing)) throw new ConflictStaleError(`${change.path} changed after the conflict; it is now ${JSON.stringify(now)}.`, now);
      const target = applyEventFields(current, new Map([[change.path, change.value]]));
      const type = target.eventType !== current.eventType || JSON.stringify(target.eventDetails) !== JSON.stringify(current.eventDetails)
        ? await this.checkDetails(tenantId, target.eventType, target.eventDetails) : null;
      const revision = await this.deps.store.transaction(async (repos) => {
        const fresh = await this.find(repos, tenantId, id);
        const at = this.deps.clock.now();
        const recorded = type ? { schemaRevision: type.schemaRevision } : {};
        const next: ActivityEvent = { ...target, eventType: type?.value ?? target.eventType, updatedAt: at, ...recorded };
        if (fresh.revision !== current.revision || !(await repos.events.update(next, fresh.revision))) return null;
        await recordRevision(repos, principal, { kind: 'event', tenantId, id: next.id, revision: fresh.revision + 1, base: null, before, after: flattenEvent(next), action: 'settled', at });
        await this.record(repos, principal, next.id, 'update_event', change.line, at);
        await change.inTransaction(repos, fresh.revision + 1);
        return fresh.revision + 1;
      });
      if (revision !== null) return revision;
      if (attempt >= 3) throw new PreconditionFailedError('The event kept changing while the conflict was settled; try again.');
    }
  }

  /** The caller's tenant's users among `ids` (authors of notes and files), by id. */
  async usersNamed(ctx: RequestContext, ids: ReadonlyArray<string | null>): Promise<Map<string, User>> {
    const { tenantId } = requirePermission(ctx, 'view_event', 'change_event');
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    return new Map((await this.deps.store.repos.users.findManyInTenant(tenantId, wanted)).map((user) => [user.id, user]));
  }

  /** The event, for its sub-resources; 404 for another tenant's or a malformed id. */
  async find(repos: Repositories, tenantId: string, id: string): Promise<EventRecord> {
    const event = isUuid(id) ? await repos.events.find(tenantId, id.toLowerCase()) : null;
    if (!event) throw new NotFoundError('No such event.');
    return event;
  }

  /** One history entry, by the acting user (none for an application). */
  async record(repos: Repositories, principal: Principal, eventId: string, type: string, message: string, at: number): Promise<void> {
    await repos.eventNotes.insertUpdate({ id: randomUUID(), tenantId: principal.tenantId, eventId, type, message: message.slice(0, 1000), userId: actingUser(principal)?.id ?? null, time: at });
  }

  async addNote(repos: Repositories, principal: Principal, eventId: string, text: string, at: number): Promise<string> {
    const id = randomUUID();
    await repos.eventNotes.insertNote({ id, tenantId: principal.tenantId, eventId, text, createdByUserId: actingUser(principal)?.id ?? null, createdAt: at, updatedAt: at });
    await this.record(repos, principal, eventId, 'add_note', 'Note Added', at);
    await repos.events.touch(principal.tenantId, eventId, at);
    return id;
  }

  /** The event's type after `details` satisfy it (EventDetailsChecker; no header is involved). */
  private async checkDetails(tenantId: string, value: string, details: Record<string, unknown>): Promise<ResolvedEventType> {
    // The original's built-in types (the web app's incident_collection) exist for every tenant: seeded on first use,
    // in a catalog transaction of its own that stores no Idempotency-Key (event-types/built-in.ts).
    await ensureBuiltInEventType(this.deps, tenantId, value);
    return this.checker.check(this.deps.store.repos, tenantId, value, details);
  }

  /** Type ids and values, and category values, to type values (filters.ts); null when nothing can match. */
  private resolveFilter(repos: Repositories, tenantId: string, query: EventListQuery): Promise<EventListFilter | null> {
    return resolveEventFilter(repos, tenantId, query);
  }

  private async link(repos: Repositories, tenantId: string, eventId: string, segmentIds: string[]): Promise<void> {
    for (const segmentId of new Set(segmentIds)) {
      if (!(await repos.patrols.findSegment(tenantId, segmentId))) throw InputError.field('patrol_segments', 'unknown_segment', `No patrol segment ${segmentId}.`, ['Link existing segments only.']);
      await repos.patrols.linkEvent(tenantId, segmentId, eventId);
    }
  }
}

function changedFields(before: ActivityEvent, after: ActivityEvent): string[] {
  const fields: Array<[string, unknown, unknown]> = [
    ['event_type', before.eventType, after.eventType], ['title', before.title, after.title], ['time', before.time, after.time],
    ['location', `${before.latitude},${before.longitude}`, `${after.latitude},${after.longitude}`], ['priority', before.priority, after.priority],
    ['state', before.state, after.state], ['event_details', JSON.stringify(before.eventDetails), JSON.stringify(after.eventDetails)],
  ];
  return fields.filter(([, a, b]) => a !== b).map(([name]) => name);
}

/** Items of `createMany` that are not valid, by index (400: their issues under `[<index>].<field>`). */
export class EventBatchInputError extends InputError {
  constructor(readonly items: ReadonlyMap<number, DomainError>) {
    const fields: Record<string, FieldIssue[]> = {};
    for (const [index, error] of items) {
      const issues = error instanceof InputError ? Object.entries(error.fields) : [];
      if (issues.length === 0) fields[`[${index}]`] = [{ code: error.code, message: error.message, hints: [] }];
      for (const [field, list] of issues) fields[`[${index}].${field}`] = list;
    }
    super(`${items.size} of the events are not valid.`, fields);
  }
}

