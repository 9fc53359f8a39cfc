import type { Services } from '../../app.js';
import { startupHandlers } from '../handlers/startup.js';
import * as startup from '../schemas/startup.js';
import { type Route, rootAndV1 } from './types.js';

const V1 = '/api/v1.0';

/**
 * What the original apps read to start (CONTRACT §11). Listed before the other areas: some
 * paths are literals where others have a parameter (`activity/events/schema`).
 */
export function startupRoutes(services: Services): Route[] {
  const h = startupHandlers({ startup: services.startup, v1: services.eventTypesV1, trustProxy: services.trustProxy, version: services.version });
  const empty = (name: string, path: string, what: string, paged: boolean): Route => ({ name, method: 'GET', paths: [`${V1}${path}`], authenticate: true, schema: startup.notProvided(what, paged), handler: h.empty(paged) });
  return [
    { name: 'users.me', method: 'GET', paths: [...rootAndV1('/users/me'), ...rootAndV1('/user/me')], authenticate: true, schema: startup.usersMe, handler: h.me },
    { name: 'users.profiles', method: 'GET', paths: rootAndV1('/user/:id/profiles'), authenticate: true, schema: startup.profiles, handler: h.profiles },
    { name: 'status', method: 'GET', paths: [`${V1}/status`], authenticate: true, schema: startup.status, handler: h.status },
    { name: 'maps', method: 'GET', paths: [`${V1}/maps`], authenticate: true, schema: startup.maps, handler: h.maps },
    { name: 'subjectgroups', method: 'GET', paths: [`${V1}/subjectgroups`], authenticate: true, schema: startup.subjectGroups, handler: h.subjectGroups },
    { name: 'events.schema', method: 'GET', paths: [`${V1}/activity/events/schema`], authenticate: true, schema: startup.eventSchema, handler: h.eventSchema },
    { name: 'eventcategories_v1.list', method: 'GET', paths: [`${V1}/activity/events/categories`], authenticate: true, schema: startup.categoriesV1, handler: h.categories },
    { name: 'eventtypes_v1.list', method: 'GET', paths: [`${V1}/activity/events/eventtypes`], authenticate: true, schema: startup.eventTypesV1, handler: h.v1EventTypes },
    empty('layers', '/layers', 'Map layers', false),
    empty('analyzers.spatial', '/analyzers/spatial', 'Spatial analyzers', false),
    empty('news', '/news', 'News', true),
  ];
}
