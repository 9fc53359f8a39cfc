import type { Clock } from '../../db/time.js';
import { BodyReader } from '../catalog/fields.js';
import { type RequestContext, requirePermission } from '../context.js';
import { InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Store } from '../ports.js';
import type { EventView } from './model.js';
import type { EventService } from './service.js';
import { loadEventViews } from './views.js';

/** The relationship types served (the original's incidents). */
export const RELATIONSHIP_TYPES = ['contains'] as const;
/** How deep an incident may nest incidents: deeper chains are refused as if they were cycles. */
const MAX_NESTING = 32;
/** Most events one incident contains (each is embedded in the incident's body). */
export const MAX_CONTAINED = 500;

/**
 * Event relationships (issue 27 §5): an incident (`from`) `contains` events (`to`), as the
 * original's `activity/event/<id>/relationships` and `relationship/contains/<to>`. Both events
 * are the caller's tenant's (another tenant's is 404); writes need change_event, run in one
 * transaction with a history entry on each event, and move both events' revisions (their bodies
 * change), which marks both on the sync feed. Adding one that exists changes nothing; a
 * relationship that would close a cycle (or relate an event to itself) is 400.
 */
export class EventRelationshipService {
  constructor(private readonly deps: { store: Store; clock: Clock; events: EventService }) {}

  /** Adds the relationship; the incident's representation, and whether anything was written. */
  async add(ctx: RequestContext, fromId: string, body: unknown): Promise<{ view: EventView; added: boolean }> {
    const principal = requirePermission(ctx, 'change_event');
    const { tenantId } = principal;
    const { type, toEventId } = readRelationshipBody(body);
    return this.deps.store.transaction(async (repos) => {
      await repos.eventRelationships.serialize(tenantId);
      const from = await this.deps.events.find(repos, tenantId, fromId);
      const to = isUuid(toEventId) ? await repos.events.find(tenantId, toEventId.toLowerCase()) : null;
      if (!to) throw new NotFoundError('No such event (to_event_id).');
      let added = false;
      if (!(await repos.eventRelationships.find(tenantId, from.id, type, to.id))) {
        if (from.id === to.id) throw InputError.field('to_event_id', 'self', 'An event cannot contain itself.', ['Name another event.']);
        if ((await repos.eventRelationships.countFrom(tenantId, from.id, type)) >= MAX_CONTAINED) {
          throw InputError.field('to_event_id', 'too_many', `Event ${from.serialNumber} already contains ${MAX_CONTAINED} events.`, ['Group them in smaller incidents, and those in one incident.']);
        }
        if (await repos.eventRelationships.reaches(tenantId, type, to.id, from.id, MAX_NESTING)) {
          throw InputError.field('to_event_id', 'cycle', `Event ${to.serialNumber} already contains event ${from.serialNumber} (directly or through others).`, ['Remove that relationship first.']);
        }
        const at = this.deps.clock.now();
        await repos.eventRelationships.add(tenantId, from.id, type, to.id, at);
        await this.deps.events.record(repos, principal, from.id, 'add_relationship', `Contains event ${to.serialNumber}`, at);
        await this.deps.events.record(repos, principal, to.id, 'add_relationship', `Added to event ${from.serialNumber}`, at);
        await repos.events.touch(tenantId, from.id, at);
        await repos.events.touch(tenantId, to.id, at);
        added = true;
      }
      const fresh = (await repos.events.find(tenantId, from.id))!;
      return { view: (await loadEventViews(repos, this.deps.events.checker, tenantId, [fresh]))[0]!, added };
    });
  }

  /** Removes it: 404 when either event or the relationship is unknown. */
  async remove(ctx: RequestContext, fromId: string, type: string, toId: string): Promise<void> {
    const principal = requirePermission(ctx, 'change_event');
    const { tenantId } = principal;
    if (!(RELATIONSHIP_TYPES as readonly string[]).includes(type)) throw new NotFoundError('No such relationship type.');
    await this.deps.store.transaction(async (repos) => {
      const from = await this.deps.events.find(repos, tenantId, fromId);
      const to = await this.deps.events.find(repos, tenantId, toId);
      if (!(await repos.eventRelationships.remove(tenantId, from.id, type, to.id))) throw new NotFoundError('No such relationship.');
      const at = this.deps.clock.now();
      await this.deps.events.record(repos, principal, from.id, 'delete_relationship', `No longer contains event ${to.serialNumber}`, at);
      await this.deps.events.record(repos, principal, to.id, 'delete_relationship', `Removed from event ${from.serialNumber}`, at);
      await repos.events.touch(tenantId, from.id, at);
      await repos.events.touch(tenantId, to.id, at);
    });
  }
}

/** `{type: 'contains', to_event_id}` (the original's clients send nothing else). */
export function readRelationshipBody(body: unknown): { type: string; toEventId: string } {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['type', 'to_event_id'], ['from_event_id', 'ordernum']);
  const type = reader.string('type', { max: 30 }) ?? 'contains';
  const toEventId = reader.string('to_event_id', { max: 36, required: true });
  if (!(RELATIONSHIP_TYPES as readonly string[]).includes(type)) reader.add('type', { code: 'invalid', message: `Unknown relationship type "${type}".`, hints: ['Use "contains".'] });
  if (toEventId !== undefined && !isUuid(toEventId)) reader.add('to_event_id', { code: 'invalid', message: 'to_event_id is an event id (UUID).', hints: ['Use the id of an event of this site.'] });
  reader.finish('The relationship is not valid.');
  return { type, toEventId: toEventId!.toLowerCase() };
}
