import type { EventService } from '../../domain/events/service.js';
import { presentEvent } from './events-presenters.js';
import { requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * The array form of `POST /api/v1.0/activity/events` (the original accepts one; issue 26 §4):
 * every event or none, in one transaction (EventService.createMany), 201 with the events in the
 * order sent. Invalid items are a 400 naming each by index (`[2].event_type`); a client id that
 * exists already is a 409 for the whole array. With an Idempotency-Key the array is one request.
 */
export function eventBatchHandlers(deps: { events: EventService; trustProxy: boolean }) {
  return {
    async createMany(ctx: AppContext) {
      const views = await deps.events.createMany(requestContext(ctx), ctx.state.body as unknown[]);
      const origin = requestOrigin(ctx, deps.trustProxy);
      ctx.status = 201;
      ctx.body = views.map((view) => presentEvent(view, origin));
    },
  };
}
