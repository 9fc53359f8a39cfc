import type { Services } from '../../app.js';
import { conflictHandlers } from '../handlers/conflicts.js';
import { conflictSchemas } from '../schemas/conflicts.js';
import { type Route, json } from './types.js';

const BASE = '/api/fieldops/v1';

/**
 * Conflicts and record history (issue 26 §3; a fieldops extension). Named `sync.*` so that both
 * response profiles serve them raw. Absent when the app was built without a ConflictService.
 */
export function conflictRoutes(services: Services): Route[] {
  if (!services.conflicts) return [];
  const h = conflictHandlers({ conflicts: services.conflicts });
  return [
    { name: 'sync.conflicts.list', method: 'GET', paths: [`${BASE}/conflicts`], authenticate: true, schema: conflictSchemas.list, handler: h.list },
    { name: 'sync.conflicts.resolve', method: 'POST', paths: [`${BASE}/conflicts/:id/resolve`], authenticate: true, body: json, schema: conflictSchemas.resolve, handler: h.resolve },
    { name: 'sync.conflicts.history', method: 'GET', paths: [`${BASE}/records/:kind/:id/history`], authenticate: true, schema: conflictSchemas.history, handler: h.history },
  ];
}
