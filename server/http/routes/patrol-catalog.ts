import type { Services } from '../../app.js';
import { catalogHandlers } from '../handlers/catalog.js';
import { choiceHandlers } from '../handlers/choices.js';
import { trackedByHandler } from '../handlers/trackedby.js';
import { presentCatalogCommon } from '../presenters.js';
import { type Route, json } from './types.js';
import { catalogSchemas, patrolTypeDescription } from '../schemas/catalog.js';
import { choiceSchemas, choicesJson, trackedBy } from '../schemas/choices.js';

const patrolTypeSchemas = catalogSchemas(patrolTypeDescription);

/** The patrol type catalog, the tracked-by schema and the choice lists. */
export function patrolCatalogRoutes(services: Services): Route[] {
  const patrolTypes = catalogHandlers(services.patrolTypes, presentCatalogCommon, { choices: services.choices, trustProxy: services.trustProxy });
  const choices = choiceHandlers(services.choices, services.trustProxy);
  const types = '/api/v1.0/activity/patrols/types';
  return [
    { name: 'patroltypes.list', method: 'GET', paths: [types], authenticate: true, schema: patrolTypeSchemas.list, handler: patrolTypes.list },
    { name: 'patroltypes.create', method: 'POST', paths: [types], authenticate: true, body: json, schema: patrolTypeSchemas.create, handler: patrolTypes.create },
    { name: 'patroltypes.schemas', method: 'GET', paths: [`${types}/schemas`], authenticate: true, schema: patrolTypeSchemas.schemas, handler: patrolTypes.schemas },
    { name: 'patroltypes.detail', method: 'GET', paths: [`${types}/:key`], authenticate: true, schema: patrolTypeSchemas.detail, handler: patrolTypes.detail },
    { name: 'patroltypes.replace', method: 'PUT', paths: [`${types}/:key`], authenticate: true, body: json, schema: patrolTypeSchemas.replace, handler: patrolTypes.replace },
    { name: 'patroltypes.patch', method: 'PATCH', paths: [`${types}/:key`], authenticate: true, body: json, schema: patrolTypeSchemas.patch, handler: patrolTypes.patch },
    { name: 'patroltypes.delete', method: 'DELETE', paths: [`${types}/:key`], authenticate: true, schema: patrolTypeSchemas.remove, handler: patrolTypes.remove },
    { name: 'patroltypes.rank', method: 'POST', paths: [`${types}/:key/rank`], authenticate: true, body: json, schema: patrolTypeSchemas.rank, handler: patrolTypes.rank },
    { name: 'patroltypes.schema', method: 'GET', paths: [`${types}/:key/schema`], authenticate: true, schema: patrolTypeSchemas.schema, handler: patrolTypes.schema },
    { name: 'patroltypes.updates', method: 'GET', paths: [`${types}/:key/updates`], authenticate: true, schema: patrolTypeSchemas.updates, handler: patrolTypes.updates },
    { name: 'trackedby', method: 'GET', paths: ['/api/v1.0/activity/patrols/trackedby'], authenticate: true, schema: trackedBy, handler: trackedByHandler(services.subjects) },
    { name: 'choices.json', method: 'GET', paths: ['/v2.0/schemas/choices.json', '/api/v2.0/schemas/choices.json'], authenticate: true, schema: choicesJson, handler: choices.choicesJson },
    { name: 'choices.list', method: 'GET', paths: ['/api/v2.0/choices'], authenticate: true, schema: choiceSchemas.list, handler: choices.list },
    { name: 'choices.create', method: 'POST', paths: ['/api/v2.0/choices'], authenticate: true, body: json, schema: choiceSchemas.create, handler: choices.create },
    { name: 'choices.get', method: 'GET', paths: ['/api/v2.0/choices/:id'], authenticate: true, schema: choiceSchemas.get, handler: choices.get },
    { name: 'choices.replace', method: 'PUT', paths: ['/api/v2.0/choices/:id'], authenticate: true, body: json, schema: choiceSchemas.replace, handler: choices.replace },
    { name: 'choices.patch', method: 'PATCH', paths: ['/api/v2.0/choices/:id'], authenticate: true, body: json, schema: choiceSchemas.patch, handler: choices.patch },
    { name: 'choices.delete', method: 'DELETE', paths: ['/api/v2.0/choices/:id'], authenticate: true, schema: choiceSchemas.remove, handler: choices.remove },
  ];
}
