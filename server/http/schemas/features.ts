import { array, errors, nullable, ok, openObject, queryParams, readErrors, str, uuid } from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

const tag = 'features';
const id = { id: { description: 'An id.' } };
const bbox = { bbox: str(200, { description: 'west,south,east,north in degrees: only features whose extent meets it.', examples: ['36.5,-1.5,37.2,-1.0'] }) };

export const feature: JSONSchema = named(
  'SpatialFeature',
  openObject(
    {
      type: { const: 'Feature' },
      id: uuid,
      geometry: openObject({ type: str() }, ['type']),
      properties: openObject({ pk: uuid, title: str(), type_name: str(), featureset_id: uuid }, ['pk', 'title', 'type_name', 'featureset_id']),
      bbox: array({ type: 'number' }, { minItems: 4, maxItems: 4 }),
    },
    ['type', 'id', 'geometry', 'properties'],
  ),
);

const collection = openObject({ type: { const: 'FeatureCollection' }, id: uuid, name: str(), features: array(feature) }, ['type', 'features']);

export const featureSchemas: Record<string, RouteSchema> = {
  sets: {
    summary: 'Spatial feature sets (imported with `fieldops admin features import`)',
    description: 'The same body in both profiles: the web app reads `features` (the sets) from the body itself.',
    tags: [tag],
    responses: { 200: ok(openObject({ features: array(openObject({ id: uuid, name: str(), feature_count: { type: 'integer' } }, ['id', 'name'])) }, ['features'])), ...readErrors() },
  },
  set: {
    summary: 'A feature set as a GeoJSON FeatureCollection (properties carry `pk`, `title`, `type_name`)',
    tags: [tag],
    params: id,
    query: queryParams(bbox),
    responses: { 200: ok(collection), ...readErrors() },
  },
  feature: { summary: 'One spatial feature (a GeoJSON Feature)', tags: [tag], params: id, responses: { 200: ok(feature), ...readErrors() } },
  group: {
    summary: 'A feature set as the Python client\'s spatial feature group',
    tags: [tag],
    params: id,
    query: queryParams(bbox),
    responses: { 200: ok(openObject({ id: uuid, name: str(), description: nullable(str()), features: array(feature) }, ['id', 'name', 'features'])), ...errors(400, 401, 403, 404, 429, 503) },
  },
};
