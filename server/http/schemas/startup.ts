import { AUTH_ERRORS, array, envelope, errors, notModified, ok, openObject, str, uuid } from './common.js';
import type { JSONSchema, RouteSchema } from './types.js';

const tag = 'startup (original apps)';
const etag = { ETag: 'Strong validator of the body (the mobile app compares it without If-None-Match).' };
const nullableStr: JSONSchema = { type: ['string', 'null'] };

const me: JSONSchema = openObject(
  {
    id: uuid, username: str(), first_name: str(), last_name: str(), email: str(), is_staff: { type: 'boolean' }, is_superuser: { type: 'boolean' },
    role: str(), date_joined: str(), last_login: nullableStr,
    permissions: {
      type: 'object',
      additionalProperties: array(str()),
      description: '`{"patrol": ["add","change","delete","view"], "event": [..., "export"], "observation": ["view", "export"], "message": [...], "<event category value>": [...]}`',
    },
    subject: { type: ['object', 'null'] },
  },
  ['id', 'username', 'first_name', 'last_name', 'email', 'is_staff', 'is_superuser', 'permissions', 'subject'],
);

export const usersMe: RouteSchema = {
  summary: 'The caller (or the profile it acts as) with its permission map',
  description: 'CONTRACT §11. Strong `ETag` on every 200, varying with the caller and `User-Profile`.',
  tags: ['users'],
  responses: { 200: { ...ok(envelope(me)), headers: etag }, 304: notModified, ...errors(...AUTH_ERRORS, 404) },
};

export const profiles: RouteSchema = {
  summary: 'The profiles a user may act as (User-Profile header)',
  tags: ['users'],
  params: { id: { description: 'A user id, or `me`.' } },
  responses: { 200: ok(envelope(array(me))), ...errors(...AUTH_ERRORS, 404) },
};

export const status: RouteSchema = {
  summary: 'Service status and site settings the web app reads first',
  description: '`service_status=true` is accepted; `services` lists none (sensor providers report through the sensors API). Public, but credentials sent are checked: a `User-Profile` the user may not act as is a 403.',
  tags: [tag],
  query: { type: 'object', properties: { service_status: str(10) } },
  responses: { 200: ok(openObject({ version: str(), site_name: str(), patrol_enabled: { type: 'boolean' }, services: array({ type: 'object' }) }, ['version', 'site_name', 'patrol_enabled', 'services'])), ...errors(401, 403, 503) },
  security: 'public',
};

export const maps: RouteSchema = {
  summary: 'The site\'s map settings (set with `fieldops admin set-map`)',
  tags: [tag],
  responses: { 200: ok(array(openObject({ id: uuid, name: str(), center: array({ type: 'number' }), zoom: { type: 'number' } }, ['id', 'name', 'center', 'zoom']))), ...errors(...AUTH_ERRORS) },
};

export const subjectGroups: RouteSchema = {
  summary: 'Subject groups the caller may view, with their subjects',
  tags: [tag],
  responses: { 200: ok(array(openObject({ id: uuid, name: str(), subgroups: array({}), subjects: array({ type: 'object' }) }, ['id', 'name', 'subgroups', 'subjects']))), ...errors(...AUTH_ERRORS) },
};

export const eventSchema: RouteSchema = {
  summary: 'The JSON Schema of an event (as the web app reads it; `reported_by.enum_ext` is the caller)',
  tags: [tag],
  responses: { 200: { ...ok({ type: 'object' }), headers: etag }, 304: notModified, ...errors(...AUTH_ERRORS) },
};

export const categoriesV1: RouteSchema = {
  summary: 'Event categories (v1 shape, with `flag` and the caller\'s actions)',
  tags: ['event types (v1)'],
  responses: { 200: ok(array(openObject({ id: uuid, value: str(), display: str(), flag: { enum: ['user', 'system'] }, permissions: array(str()) }, ['id', 'value', 'display', 'flag', 'permissions']))), ...errors(...AUTH_ERRORS) },
};

export const eventTypesV1: RouteSchema = {
  summary: 'List v1 event types (original shape: `category` as an object)',
  description: 'Strong `ETag`; it moves when any type, document, category or choice changes. `schema` (the rendered v1 document) only with `include_schema=true`.',
  tags: ['event types (v1)'],
  query: { type: 'object', properties: { include_schema: str(10), include_inactive: str(10) } },
  responses: {
    200: {
      ...ok(array(openObject({ id: uuid, value: str(), display: str(), category: { type: 'object' }, ordernum: { type: ['number', 'null'] }, is_collection: { type: 'boolean' }, icon_id: str(), geometry_type: str(), url: str(), default_priority: { type: 'integer' }, is_active: { type: 'boolean' }, version: str(), migrated_to: nullableStr }, ['id', 'value', 'display', 'category', 'is_collection', 'icon_id', 'geometry_type', 'url']))),
      headers: etag,
    },
    304: notModified,
    ...errors(400, ...AUTH_ERRORS),
  },
};

/** Features of the original the service does not provide: an empty answer, never a 404. */
export const notProvided = (what: string, paged: boolean): RouteSchema => ({
  summary: `${what}: not provided (always empty)`,
  tags: [tag],
  responses: { 200: ok(paged ? openObject({ count: { const: 0 }, results: array({}, { maxItems: 0 }) }, ['count', 'results']) : array({}, { maxItems: 0 })), ...errors(...AUTH_ERRORS) },
});
