import { SYNC_BASE_PATH } from '../../../protocol/sync.js';
import type { Services } from '../../app.js';
import { syncHandlers } from '../handlers/sync.js';
import { syncSchemas } from '../schemas/sync.js';
import { type Route, json } from './types.js';

/** The sync feed (a fieldops extension, docs/sync.md): POST so that long scope lists never meet URL limits. */
export function syncRoutes(services: Services): Route[] {
  const h = syncHandlers({ feed: services.syncFeed, repair: services.syncRepair, trustProxy: services.trustProxy, apiProfile: services.apiProfile });
  return [
    { name: 'sync.changes', method: 'POST', paths: [`${SYNC_BASE_PATH}/changes`], authenticate: true, body: json, schema: syncSchemas.changes, handler: h.changes },
    { name: 'sync.ranges', method: 'POST', paths: [`${SYNC_BASE_PATH}/ranges`], authenticate: true, body: json, schema: syncSchemas.ranges, handler: h.ranges },
    { name: 'sync.records', method: 'POST', paths: [`${SYNC_BASE_PATH}/records`], authenticate: true, body: json, schema: syncSchemas.records, handler: h.records },
    { name: 'sync.explain', method: 'GET', paths: [`${SYNC_BASE_PATH}/explain`], authenticate: true, schema: syncSchemas.explain, handler: h.explain },
  ];
}
