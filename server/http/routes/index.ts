import { eventUsageRoutes } from './event-usage.js';
import { schemaLifecycleRoutes } from './schema-lifecycle.js';
import type { Services } from '../../app.js';
import { coreRoutes } from './core.js';
import { patrolCatalogRoutes } from './patrol-catalog.js';
import { eventTypeRoutes } from './event-types.js';
import { patrolRoutes } from './patrols.js';
import { eventRoutes } from './events.js';
import { sensorRoutes } from './sensors.js';
import { docsRoutes } from './docs.js';
import { startupRoutes } from './startup.js';
import { staticRoutes } from './static.js';
import { syncRoutes } from './sync.js';
import { conflictRoutes } from './conflicts.js';
import { uploadRoutes } from './uploads.js';
import { pushRoutes } from './push.js';
import { subjectRoutes } from './subjects.js';
import { trackRoutes } from './tracks.js';
import { messageRoutes } from './messages.js';
import { featureRoutes } from './features.js';
import type { Route } from './types.js';
import { describeIdempotency } from './idempotent.js';

export type { Route, Method } from './types.js';

/**
 * The route table: the whole HTTP surface, assembled from one module per area. Order matters
 * where paths overlap: a literal segment comes before a parameter in the same place
 * (`/types/schemas` before `/types/:key`; `/events/eventtypes` before `/events/:id`).
 */
export function routeTable(services: Services): Route[] {
  const table: Route[] = [...startupRoutes(services), ...coreRoutes(services), ...patrolCatalogRoutes(services), ...patrolRoutes(services), ...eventUsageRoutes(services), ...schemaLifecycleRoutes(services), ...eventTypeRoutes(services), ...eventRoutes(services), ...trackRoutes(services), ...subjectRoutes(services), ...sensorRoutes(services), ...messageRoutes(services), ...featureRoutes(services), ...syncRoutes(services), ...conflictRoutes(services), ...pushRoutes(services), ...uploadRoutes(services), ...staticRoutes(services)].map(describeIdempotency);
  // The description covers the whole table, its own routes included.
  table.push(...docsRoutes(() => table));
  return table;
}
