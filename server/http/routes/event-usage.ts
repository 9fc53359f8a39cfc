import type { Services } from '../../app.js';
import { eventUsageHandlers } from '../handlers/event-usage.js';
import { eventUsageSchemas as s } from '../schemas/event-usage.js';
import type { Route } from './types.js';

/**
 * Issue 28: usage summaries. Registered before eventTypeRoutes: `/eventtypes/usage` is a literal
 * segment where the detail route has `/:key`.
 */
export function eventUsageRoutes(services: Services): Route[] {
  const h = eventUsageHandlers({ usage: services.eventUsage });
  const v2 = '/api/v2.0/activity/eventtypes';
  return [
    { name: 'eventtypes.usage_many', method: 'GET', paths: [`${v2}/usage`], authenticate: true, schema: s.many, handler: h.many },
    { name: 'eventtypes.usage', method: 'GET', paths: [`${v2}/:key/usage`], authenticate: true, schema: s.one, handler: h.one },
  ];
}
