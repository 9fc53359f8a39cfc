import { array, dateTime, errors, AUTH_ERRORS, latLon, noContent, nullable, object, ok, openObject, priority, queryParams, readErrors, str, uuid, writeErrors, created } from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/** Events on the map, the events export and incidents (issue 27 §3–§5). */

const tag = 'events';
const uri: JSONSchema = { type: 'string', format: 'uri' };

export const eventFeature: JSONSchema = named('EventFeature', object({
  type: { const: 'Feature' },
  geometry: object({ type: { const: 'Point' }, coordinates: array({ type: 'number' }, { minItems: 2, maxItems: 2, description: '[longitude, latitude]' }) }),
  properties: openObject({
    id: uuid, serial_number: { type: 'integer' }, title: nullable(str()), event_type: str(), event_category: nullable(str()), priority, state: { enum: ['new', 'active', 'resolved'] },
    time: dateTime, datetime: dateTime, is_collection: { type: 'boolean' }, message: str(),
    image: { ...uri, description: 'The event type\'s icon (the catalog\'s icon route): what the web app draws.' },
    icon: openObject({ iconUrl: uri }),
  }, ['id', 'title', 'event_type', 'priority', 'state', 'time', 'image']),
}, ['type', 'geometry', 'properties'], { description: 'The event as a GeoJSON Feature (a Point from its location); null when it has no location.' }));

const relatedEvent: JSONSchema = named('RelatedEvent', object({
  id: uuid, serial_number: { type: 'integer' }, event_type: str(), event_category: nullable(str()), title: nullable(str()), time: dateTime, location: nullable(latLon), priority,
  state: { enum: ['new', 'active', 'resolved'] }, is_collection: { type: 'boolean' }, icon_id: str(), image_url: uri, geojson: nullable(eventFeature), url: uri, created_at: dateTime, updated_at: dateTime,
}));

export const relationshipItem: JSONSchema = named('EventRelationshipItem', object({
  type: { const: 'contains' },
  ordernum: nullable({ type: 'integer' }),
  url: { ...uri, description: 'The related event.' },
  related_event: relatedEvent,
}));

const featureCollection: JSONSchema = named('EventFeatureCollection', object({
  type: { const: 'FeatureCollection' },
  count: { type: 'integer', minimum: 0 },
  next: nullable(uri),
  previous: nullable(uri),
  features: array(eventFeature),
}, undefined, { description: 'A page of the filtered events\' features, as the original paginates GeoJSON (`count`, `next`, `previous` beside `features`). Events without a location are left out.' }));

/** The list's query (events.ts passes it in: one description of the filter). */
export function eventMapSchemas(listQuery: JSONSchema, event: JSONSchema) {
  const countQuery = { ...listQuery, properties: Object.fromEntries(Object.entries(listQuery.properties as Record<string, JSONSchema>).filter(([name]) => name !== 'page' && name !== 'page_size')) };
  const relationParams = { id: { description: 'The incident\'s id (UUID).', schema: uuid } };
  return {
    geojson: { summary: 'The filtered events as a GeoJSON FeatureCollection (paginated)', tags: [tag], query: listQuery, responses: { 200: ok(featureCollection), ...errors(400, ...AUTH_ERRORS, 404) } },
    count: { summary: 'How many events the filter matches', tags: [tag], query: countQuery, responses: { 200: ok(object({ count: { type: 'integer', minimum: 0 } })), ...errors(400, ...AUTH_ERRORS) } },
    export: {
      summary: 'The filtered events as CSV (needs export_event)',
      description: 'Streamed. The common columns, then one column set per event type present (its `event_details` fields, titled from the type\'s schema where it has a title). The same filter as the list (`filter`, `state`, `event_type`, `bbox`, `updated_since`, `sort_by`). A file in every profile.',
      tags: [tag], query: countQuery,
      responses: { 200: { description: 'CSV (`Content-Disposition: attachment`).', mediaType: 'text/csv' }, ...errors(400, ...AUTH_ERRORS) },
    },
    addRelationship: {
      summary: 'Add an event to an incident (`{type: "contains", to_event_id}`)',
      description: 'Both events of the caller\'s site (404 otherwise). Adding one that exists changes nothing (200); a relationship that would make a cycle, or an event contain itself, is 400. Answers the incident, its `contains` listing the events in order.',
      tags: [tag], params: relationParams,
      body: { kind: 'json', schema: named('EventRelationshipBody', object({ type: { enum: ['contains'] }, to_event_id: str(36, { 'x-error-code': 'invalid' }) }, ['to_event_id'])) },
      responses: { 201: created(event), 200: ok(event, 'The relationship existed already: nothing changed.'), ...writeErrors() },
    },
    removeRelationship: {
      summary: 'Remove an event from an incident',
      tags: [tag],
      params: { ...relationParams, type: { description: '`contains`.', schema: str(30) }, to: { description: 'The contained event\'s id (UUID).', schema: uuid } },
      responses: { 204: noContent, ...readErrors() },
    },
  } satisfies Record<string, RouteSchema>;
}
