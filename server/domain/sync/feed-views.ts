/**
 * The current records behind feed changes, loaded in batches per kind with the same view loaders
 * the REST reads use (the handler presents them with the REST presenters). Log rows carry no
 * body: a change is served with the record as it is when the page is read.
 */
import { MAX_PAGE_CHANGES, type RecordKind } from '../../../protocol/sync.js';
import type { EventDetailsChecker } from '../events/details.js';
import type { EventView } from '../events/model.js';
import { loadEventViews } from '../events/views.js';
import type { Choice, EventCategory, EventType, PatrolType } from '../model.js';
import type { PatrolView } from '../patrols/model.js';
import { loadPatrolViews } from '../patrols/views.js';
import type { Repositories, SubjectWithStatus } from '../ports.js';
import type { SyncFeedReads } from './feed-ports.js';

export type RecordView =
  | { kind: 'event'; view: EventView }
  | { kind: 'patrol'; view: PatrolView }
  | { kind: 'subject'; view: SubjectWithStatus }
  | { kind: 'patrol_type'; view: PatrolType }
  | { kind: 'event_type'; view: EventType }
  | { kind: 'event_category'; view: EventCategory }
  | { kind: 'choice'; view: Choice };

/**
 * Records per view batch: a whole page (MAX_PAGE_CHANGES), so that a page costs one read per
 * table. 1,000 bound ids are far below either driver's limit on parameters.
 */
const BATCH = MAX_PAGE_CHANGES;
/** Up to this many subjects or categories are read one by one; more, from the tenant's list. */
const ONE_BY_ONE = 20;

/** The views of those of `ids` that exist, by id. */
export async function loadRecordViews(
  deps: { repos: Repositories; reads: SyncFeedReads; checker: EventDetailsChecker },
  tenantId: string,
  kind: RecordKind,
  ids: readonly string[],
): Promise<Map<string, RecordView>> {
  const out = new Map<string, RecordView>();
  const { repos, reads } = deps;
  for (let i = 0; i < ids.length; i += BATCH) {
    const part = ids.slice(i, i + BATCH);
    switch (kind) {
      case 'event': {
        const events = await reads.eventsByIds(tenantId, part);
        for (const view of await loadEventViews(repos, deps.checker, tenantId, events, { concurrent: true })) out.set(view.event.id, { kind, view });
        break;
      }
      case 'patrol': {
        const patrols = await reads.patrolsByIds(tenantId, part);
        for (const view of await loadPatrolViews(repos, tenantId, patrols)) out.set(view.patrol.id, { kind, view });
        break;
      }
      case 'subject':
        // The subject with its status and groups, read as GET …/subject(s) read them: a few one
        // by one, more through the whole list (three statements; subjects are few per tenant
        // next to events).
        if (part.length <= ONE_BY_ONE) {
          for (const id of part) {
            const view = await repos.sensorSubjects.findWithStatus(tenantId, id);
            if (view) out.set(id, { kind, view });
          }
        } else {
          const wanted = new Set(part);
          for (const view of await repos.sensorSubjects.listWithStatus(tenantId, true)) if (wanted.has(view.subject.id)) out.set(view.subject.id, { kind, view });
        }
        break;
      case 'patrol_type':
        for (const view of await repos.patrolTypes.findMany(tenantId, part)) out.set(view.id, { kind, view });
        break;
      case 'event_type':
        for (const view of await repos.eventTypes.findMany(tenantId, part)) out.set(view.id, { kind, view });
        break;
      case 'event_category':
        // Categories are few per tenant: more than a handful are picked from the whole list.
        if (part.length <= ONE_BY_ONE) {
          for (const id of part) {
            const view = await repos.eventCategories.find(tenantId, id);
            if (view) out.set(id, { kind, view });
          }
        } else {
          const wanted = new Set(part);
          for (const view of await repos.eventCategories.list(tenantId, true)) if (wanted.has(view.id)) out.set(view.id, { kind, view });
        }
        break;
      case 'choice':
        for (const view of await repos.choices.findMany(tenantId, part)) out.set(view.id, { kind, view });
        break;
    }
  }
  return out;
}
