import type { Services } from '../../app.js';
import { catalogHandlers } from '../handlers/catalog.js';
import { eventTypeSupportHandlers } from '../handlers/event-types.js';
import { presentEventType } from '../presenters.js';
import { type Route, json } from './types.js';
import { catalogSchemas, eventTypeDescription } from '../schemas/catalog.js';
import { categorySchemas, categoryV1Schemas, migrate, v1Schemas } from '../schemas/event-types.js';

const eventTypeSchemas = catalogSchemas(eventTypeDescription);

/** v2 event types (the shared catalog handlers), event categories, v1 event types and migration. */
export function eventTypeRoutes(services: Services): Route[] {
  const types = catalogHandlers(services.eventTypes, presentEventType, { choices: services.choices, trustProxy: services.trustProxy });
  const support = eventTypeSupportHandlers({ categories: services.eventCategories, v1: services.eventTypesV1, migration: services.eventTypeMigration, trustProxy: services.trustProxy });
  const v2 = '/api/v2.0/activity/eventtypes';
  const v1 = '/api/v1.0/activity/events/eventtypes';
  const categories = '/api/v2.0/activity/eventcategories';
  return [
    { name: 'eventtypes.list', method: 'GET', paths: [v2], authenticate: true, schema: eventTypeSchemas.list, handler: types.list },
    { name: 'eventtypes.create', method: 'POST', paths: [v2], authenticate: true, body: json, schema: eventTypeSchemas.create, handler: types.create },
    { name: 'eventtypes.migrate', method: 'POST', paths: [`${v2}/migrate`], authenticate: true, body: json, schema: migrate, handler: support.migrate },
    { name: 'eventtypes.schemas', method: 'GET', paths: [`${v2}/schemas`], authenticate: true, schema: eventTypeSchemas.schemas, handler: types.schemas },
    { name: 'eventtypes.detail', method: 'GET', paths: [`${v2}/:key`], authenticate: true, schema: eventTypeSchemas.detail, handler: types.detail },
    { name: 'eventtypes.replace', method: 'PUT', paths: [`${v2}/:key`], authenticate: true, body: json, schema: eventTypeSchemas.replace, handler: types.replace },
    { name: 'eventtypes.patch', method: 'PATCH', paths: [`${v2}/:key`], authenticate: true, body: json, schema: eventTypeSchemas.patch, handler: types.patch },
    { name: 'eventtypes.delete', method: 'DELETE', paths: [`${v2}/:key`], authenticate: true, schema: eventTypeSchemas.remove, handler: types.remove },
    { name: 'eventtypes.rank', method: 'POST', paths: [`${v2}/:key/rank`], authenticate: true, body: json, schema: eventTypeSchemas.rank, handler: types.rank },
    { name: 'eventtypes.schema', method: 'GET', paths: [`${v2}/:key/schema`], authenticate: true, schema: eventTypeSchemas.schema, handler: types.schema },
    { name: 'eventtypes.updates', method: 'GET', paths: [`${v2}/:key/updates`], authenticate: true, schema: eventTypeSchemas.updates, handler: types.updates },

    { name: 'eventcategories.list', method: 'GET', paths: [categories], authenticate: true, schema: categorySchemas.list, handler: support.listCategories },
    { name: 'eventcategories.create', method: 'POST', paths: [categories], authenticate: true, body: json, schema: categorySchemas.create, handler: support.createCategory },
    { name: 'eventcategories.get', method: 'GET', paths: [`${categories}/:key`], authenticate: true, schema: categorySchemas.get, handler: support.getCategory },
    { name: 'eventcategories.patch', method: 'PATCH', paths: [`${categories}/:key`], authenticate: true, body: json, schema: categorySchemas.patch, handler: support.updateCategory },

    // er-client post_event_category / patch_event_category (the v1 GET is a startup route).
    { name: 'eventcategories_v1.create', method: 'POST', paths: ['/api/v1.0/activity/events/categories'], authenticate: true, body: json, schema: categoryV1Schemas.create, handler: support.createCategoryV1 },
    { name: 'eventcategories_v1.patch', method: 'PATCH', paths: ['/api/v1.0/activity/events/categories/:key'], authenticate: true, body: json, schema: categoryV1Schemas.patch, handler: support.updateCategoryV1 },

    { name: 'eventtypes_v1.create', method: 'POST', paths: [v1], authenticate: true, body: json, schema: v1Schemas.create, handler: support.createV1 },
    { name: 'eventtypes_v1.get', method: 'GET', paths: [`${v1}/:key`], authenticate: true, schema: v1Schemas.get, handler: support.getV1 },
    { name: 'eventtypes_v1.replace', method: 'PUT', paths: [`${v1}/:key`], authenticate: true, body: json, schema: v1Schemas.replace, handler: support.replaceV1 },
    { name: 'eventtypes_v1.patch', method: 'PATCH', paths: [`${v1}/:key`], authenticate: true, body: json, schema: v1Schemas.patch, handler: support.patchV1 },
    { name: 'eventtypes_v1.render', method: 'GET', paths: ['/api/v1.0/activity/events/schema/eventtype/:key'], authenticate: true, schema: v1Schemas.render, handler: support.renderV1 },
  ];
}
