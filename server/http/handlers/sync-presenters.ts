import { strongEtag } from '../../domain/catalog/etag.js';
import { detailQueryKey } from '../../domain/catalog/queries.js';
import type { Principal } from '../../domain/context.js';
import { eventTypeKind } from '../../domain/event-types/kind.js';
import { eventEtag } from '../../domain/events/service.js';
import type { ApiProfile, CatalogItem } from '../../domain/model.js';
import { patrolTypeKind } from '../../domain/patrol-types/kind.js';
import type { RecordView } from '../../domain/sync/feed.js';
import { profileOf } from '../presentation/profile.js';
import { earthRangerRule } from '../presentation/rules.js';
import { presentCatalogCommon, presentChoice, presentEventCategory, presentEventType, withSchema } from '../presenters.js';
import { presentPatrol } from '../presenters-patrols.js';
import type { AppContext } from '../state.js';
import { presentEvent } from './events-presenters.js';
import { presentSubjectWithStatus } from './sensors.js';

/**
 * Feed records as the REST reads show them to the same caller: the detail presenters (events,
 * patrols, subjects) and, for catalog items, the list item with `include_schema` (deactivated
 * items included: a laptop must learn that a type was deactivated). The profile step applies as
 * on the REST route the record comes from (a route whose `earthranger` rule reshapes its payload
 * reshapes the record here too; the envelope itself is the feed's, not the record's).
 * `etag`: what the record's detail endpoint sends as ETag (null where it sends none: patrols
 * carry no validators, specification rule 8). `revision`: the record's (issue 26 §2), null for
 * catalog kinds; it stays on the change in every profile (the feed's envelope is one protocol),
 * while the record itself is shown as its route shows it (the earthranger profile strips it).
 */
const ROUTE_OF: Record<RecordView['kind'], string> = {
  event: 'events.get',
  patrol: 'patrols.get',
  subject: 'subjects.get',
  patrol_type: 'patroltypes.detail',
  event_type: 'eventtypes.detail',
  event_category: 'eventcategories.get',
  choice: 'choices.get',
};

/** The catalog detail's ETag for `?include_inactive=true&include_schema=true` (CatalogService.detailEtag). */
function catalogEtag(catalog: string, item: CatalogItem, origin: string): string {
  return strongEtag(catalog, item.tenantId, item.id, item.revision, detailQueryKey({ includeInactive: true, includeSchema: true }), origin);
}

export interface ShownRecord {
  record: Record<string, unknown>;
  etag: string | null;
  revision: number | null;
}

function present(view: RecordView, origin: string): ShownRecord {
  switch (view.kind) {
    case 'event':
      return { record: presentEvent(view.view, origin), etag: eventEtag(view.view.event), revision: view.view.event.revision };
    case 'patrol':
      return { record: presentPatrol(view.view, origin), etag: null, revision: view.view.patrol.revision };
    case 'subject':
      return { record: presentSubjectWithStatus(view.view, origin), etag: null, revision: view.view.subject.revision };
    case 'patrol_type':
      return { record: withSchema(presentCatalogCommon(view.view, origin), view.view, true), etag: catalogEtag(patrolTypeKind.catalog, view.view, origin), revision: null };
    case 'event_type':
      return { record: withSchema(presentEventType(view.view, origin), view.view, true), etag: catalogEtag(eventTypeKind.catalog, view.view, origin), revision: null };
    case 'event_category':
      return { record: presentEventCategory(view.view), etag: null, revision: null };
    case 'choice':
      return { record: presentChoice(view.view), etag: null, revision: null };
  }
}

export function presentRecord(ctx: AppContext, view: RecordView, origin: string, fallback: ApiProfile): ShownRecord {
  const shown = present(view, origin);
  const principal: Principal | null = ctx.state.principal ?? null;
  if (profileOf(principal, fallback) !== 'earthranger') return shown;
  const rule = earthRangerRule(ROUTE_OF[view.kind]);
  if (rule.kind === 'wrap' && rule.data) return { ...shown, record: rule.data(shown.record, ctx, 200) as Record<string, unknown> };
  // An enveloped route's rule reshapes what is under `data`: here, the record itself.
  if (rule.kind === 'enveloped' && rule.data) return { ...shown, record: rule.data(shown.record) as Record<string, unknown> };
  return shown;
}
