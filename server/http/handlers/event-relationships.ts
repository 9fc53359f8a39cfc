import { eventEtag, type EventService } from '../../domain/events/service.js';
import { presentEvent } from './events-presenters.js';
import { requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * Incidents (issue 27 §5): `POST activity/event/<id>/relationships` `{type: 'contains',
 * to_event_id}` answers the incident (201, or 200 when the relationship existed);
 * `DELETE activity/event/<id>/relationship/contains/<to>` answers 204.
 */
export function eventRelationshipHandlers(deps: { events: EventService; trustProxy: boolean }) {
  return {
    async add(ctx: AppContext) {
      const { view, added } = await deps.events.relationships.add(requestContext(ctx), String(ctx.params.id), ctx.state.body);
      ctx.status = added ? 201 : 200;
      ctx.set('ETag', eventEtag(view.event));
      ctx.body = presentEvent(view, requestOrigin(ctx, deps.trustProxy));
    },
    async remove(ctx: AppContext) {
      await deps.events.relationships.remove(requestContext(ctx), String(ctx.params.id), String(ctx.params.type), String(ctx.params.to));
      ctx.status = 204;
    },
  };
}
