import type { Services } from '../../app.js';
import { schemaLifecycleHandlers } from '../handlers/schema-lifecycle.js';
import { lifecycleSchemas } from '../schemas/schema-lifecycle.js';
import { type Route, json } from './types.js';

/**
 * Issue 28: as-of, restore, drafts and publish of v2 event types. Registered before
 * eventTypeRoutes; every path here has a literal last segment, so none shadows theirs.
 */
export function schemaLifecycleRoutes(services: Services): Route[] {
  const h = schemaLifecycleHandlers(services.schemaLifecycle, { trustProxy: services.trustProxy });
  const v2 = '/api/v2.0/activity/eventtypes/:key';
  return [
    { name: 'eventtypes.as_of', method: 'GET', paths: [`${v2}/as_of`], authenticate: true, schema: lifecycleSchemas.asOf, handler: h.asOf },
    { name: 'eventtypes.restore', method: 'POST', paths: [`${v2}/restore`], authenticate: true, body: json, schema: lifecycleSchemas.restore, handler: h.restore },
    { name: 'eventtypes.draft_get', method: 'GET', paths: [`${v2}/draft`], authenticate: true, schema: lifecycleSchemas.getDraft, handler: h.getDraft },
    { name: 'eventtypes.draft_put', method: 'PUT', paths: [`${v2}/draft`], authenticate: true, body: json, schema: lifecycleSchemas.putDraft, handler: h.putDraft },
    { name: 'eventtypes.draft_delete', method: 'DELETE', paths: [`${v2}/draft`], authenticate: true, schema: lifecycleSchemas.deleteDraft, handler: h.deleteDraft },
    { name: 'eventtypes.publish', method: 'POST', paths: [`${v2}/publish`], authenticate: true, body: json, schema: lifecycleSchemas.publish, handler: h.publish },
  ];
}
