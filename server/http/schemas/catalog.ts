import {
  AUTH_ERRORS, array, created, dateTime, errors, fieldIssue, noContent, notModified, nullable, object, ok, openObject, page, pageParams,
  priority, queryBoolean, queryDateTime, queryParams, readErrors, readOnly, slug, str, uuid, writeErrors,
} from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/**
 * The schema-carrying catalogs (CONTRACT §3, §5): patrol types and v2 event types share their
 * handlers, so they share these descriptions; a kind adds its own item fields and body fields.
 */
export interface CatalogDescription {
  /** "patrol type" */
  label: string;
  /** "PatrolType": its schemas' names in the OpenAPI document. */
  component: string;
  tag: string;
  /** Extra fields of the item as served. */
  itemFields: Record<string, JSONSchema>;
  /** Extra fields some items carry (not required). */
  optionalItemFields?: Record<string, JSONSchema>;
  /** Extra writable body fields. */
  bodyFields: Record<string, JSONSchema>;
}

const includeInactive = queryBoolean('Include deactivated items (detail: reach a deactivated one).');
const includeSchema = queryBoolean('Add each item\'s stored `schema` (raw, no expansion); a different ETag.');
const updatedSince = queryDateTime('Only items whose updated_at is at or after this instant.');
const preRender = queryBoolean('Expand choice lists (`$ref`s resolved with the caller\'s rights; unresolvable ones become `{}`) and drop the root `unevaluatedProperties: false`.');
const sFormat = { enum: ['anyOf', 'oneOf', 'enum'], description: 'Shape of expanded choice fields with pre_render: anyOf (default) `[{const, title}]`, oneOf, or enum (+ `x-enumExtra`).' };
const keyParam = (label: string) => ({ key: { description: `The ${label}'s id (UUID) or value (slug).`, schema: str(100) } });

/** A `{json, ui}` document; the rules are the toolkit's (meta-schema, `$schema` URI, ui references). */
export const schemaEnvelope: JSONSchema = {
  type: 'object',
  description: 'A `{json, ui}` document: `json` a JSON Schema 2020-12 object, `ui` the interface layout. The root key `auto-generate` is kept; `readonly`, `icon_id` and `image_url` are refused.',
  properties: { json: { type: 'object' }, ui: { type: 'object' } },
};

export function catalogItem(d: CatalogDescription, withSchema = false): JSONSchema {
  const fields: Record<string, JSONSchema> = {
    id: uuid,
    value: str(50),
    display: str(255),
    ordernum: { type: ['number', 'null'], description: 'Changed only by the rank endpoint.' },
    icon: str(255, { description: 'Raw icon; "" when none.' }),
    icon_id: str(undefined, { description: '`icon`, else `value`.' }),
    image_url: { type: 'string', format: 'uri', description: 'Absolute URL of the icon under /static/.' },
    default_priority: priority,
    is_active: { type: 'boolean' },
    updated_at: dateTime,
    ...d.itemFields,
  };
  const required = Object.keys(fields);
  Object.assign(fields, d.optionalItemFields);
  if (withSchema) fields.schema = schemaEnvelope;
  return named(withSchema ? `${d.component}WithSchema` : d.component, object(fields, required));
}

/** POST and PUT need value and display; PATCH needs nothing. Unknown fields are 400. */
function writeBody(d: CatalogDescription, mode: 'create' | 'replace' | 'patch'): JSONSchema {
  const properties: Record<string, JSONSchema> = {
    value: slug(50),
    // Blank only where required (POST, PUT).
    display: str(255, mode === 'patch' ? {} : { minLength: 1, 'x-error-codes': { minLength: 'blank' } }),
    icon: str(255),
    default_priority: priority,
    is_active: { type: 'boolean' },
    schema: { ...schemaEnvelope, 'x-error-code': 'schema_structure_error', description: `${schemaEnvelope.description} Replaces the stored document wholesale; omit it to keep the stored one (null is 400).` },
    ...d.bodyFields,
  };
  for (const name of ['id', 'ordernum', 'icon_id', 'image_url', 'updated_at']) properties[name] = readOnly();
  return named(`${d.component}${mode === 'create' ? 'Create' : mode === 'replace' ? 'Replace' : 'Patch'}`, object(properties, mode === 'patch' ? [] : ['value', 'display']));
}

const revision: JSONSchema = named('Revision', object(
  {
    time: dateTime,
    action: { enum: ['created', 'updated', 'deleted'] },
    user: nullable(object({ id: uuid, username: nullable(str()) })),
    updated_fields: { type: 'array', items: { type: 'string' }, description: 'Later entries: the changed keys (CONTRACT §11).' },
    changes: { type: 'object', description: 'Later entries: the changed fields with their new values.' },
    snapshot: { type: 'object', description: 'The create entry: a full snapshot.' },
    sequence: { type: 'integer' },
    note: { type: 'string', description: 'Issue 28: why the revision was written (a restore; a publish and the breaking changes it allowed, with reasons). Only when present.' },
  },
  ['time', 'action', 'user', 'sequence'],
));

const batchEntry: JSONSchema = named('SchemaBatchEntry', object(
  { value: str(), status: { enum: ['success', 'partial', 'failure'] }, schema: { type: ['object', 'null'] }, errors: array(fieldIssue) },
  ['value', 'status', 'schema'],
));
const batch = object({ count: { type: 'integer' }, results: array(batchEntry) });

const ifMatch = 'Optimistic concurrency: with `If-Match`, the write happens only when the tag names the current revision (any representation of it); otherwise 412.';
const conditional = 'Conditional GET: strong `ETag` (with If-None-Match) and `Last-Modified` (with If-Modified-Since; ignored when If-None-Match is sent); `Cache-Control: private, no-cache`.';

/** The ten routes of one catalog, by handler name. */
export function catalogSchemas(d: CatalogDescription) {
  const { label, tag } = d;
  const item = catalogItem(d);
  const withSchema = catalogItem(d, true);
  const params = keyParam(label);
  return {
    list: {
      summary: `List ${label}s (a bare array)`, description: conditional, tags: [tag],
      query: queryParams({ include_inactive: includeInactive, include_schema: includeSchema, updated_since: updatedSince }),
      responses: { 200: ok(array(withSchema)), 304: notModified, ...errors(400, ...AUTH_ERRORS) },
    },
    detail: {
      summary: `One ${label} by id or value`, description: conditional, tags: [tag], params,
      query: queryParams({ include_inactive: includeInactive, include_schema: includeSchema }),
      responses: { 200: ok(withSchema), 304: notModified, ...readErrors() },
    },
    create: {
      summary: `Create a ${label}`, tags: [tag], body: { kind: 'json', schema: writeBody(d, 'create') },
      responses: { 201: created(item, `The ${label} (never with schema).`), ...writeErrors(), ...errors(409) },
    },
    replace: { summary: `Replace a ${label}`, description: ifMatch, tags: [tag], params, body: { kind: 'json', schema: writeBody(d, 'replace') }, responses: { 200: ok(item), ...writeErrors(), ...errors(409, 412) } },
    patch: { summary: `Change some fields of a ${label}`, description: ifMatch, tags: [tag], params, body: { kind: 'json', schema: writeBody(d, 'patch') }, responses: { 200: ok(item), ...writeErrors(), ...errors(409, 412) } },
    remove: { summary: `Delete a ${label}`, description: ifMatch, tags: [tag], params, responses: { 204: noContent, ...readErrors(), ...errors(412) } },
    rank: {
      summary: `Move a ${label} before another (null: to the front)`,
      description: 'ordernum becomes the midpoint of its new neighbours; all are renumbered 1..N when the gap is below 1e-4.',
      tags: [tag], params,
      body: { kind: 'json', schema: openObject({ before_key: { type: ['string', 'null'], format: 'uuid', description: `Id of the ${label} it should precede, or null.`, 'x-error-code': 'invalid' } }, ['before_key']) },
      responses: { 204: noContent, ...writeErrors() },
    },
    schemas: {
      summary: `Every ${label}'s schema, checked (200 when all succeed, 207 otherwise)`, tags: [tag],
      query: queryParams({ include_inactive: includeInactive, updated_since: updatedSince, pre_render: preRender, s_format: sFormat }),
      responses: { 200: ok(batch), 207: { description: 'Some entries failed or are partial.', json: batch }, ...errors(400, ...AUTH_ERRORS) },
    },
    schema: {
      summary: `One ${label}'s {json, ui} document`, tags: [tag], params,
      query: queryParams({ include_inactive: includeInactive, pre_render: preRender, s_format: sFormat }),
      responses: { 200: ok({ type: 'object', description: 'The bare `{json, ui}` document (the empty envelope until one is written).' }), ...readErrors(), ...errors(422) },
    },
    updates: {
      summary: `Revision history of a ${label}, newest first`, tags: [tag], params,
      query: queryParams({ ...pageParams, include_inactive: includeInactive }),
      responses: { 200: ok(page(revision)), ...readErrors() },
    },
  } satisfies Record<string, RouteSchema>;
}

export const patrolTypeDescription: CatalogDescription = { label: 'patrol type', component: 'PatrolType', tag: 'patrol types', itemFields: {}, bodyFields: {} };

export const eventTypeDescription: CatalogDescription = {
  label: 'event type',
  component: 'EventType',
  tag: 'event types',
  itemFields: {
    category: str(50),
    default_state: { enum: ['new', 'active', 'resolved'] },
    geometry_type: { enum: ['Point', 'Polygon'] },
    is_collection: { type: 'boolean' },
    readonly: { type: 'boolean' },
    version: { const: '2' },
  },
  optionalItemFields: {
    has_events_assigned: { type: 'boolean', description: 'The earthranger profile only (list and detail): at least one event was recorded with this type. Covered by the ETag.' },
  },
  bodyFields: {
    category: str(50, { pattern: '^[A-Za-z0-9_-]*$', description: 'An event category value, or "" for none.' }),
    default_state: { enum: ['new', 'active', 'resolved'] },
    geometry_type: { enum: ['Point', 'Polygon'] },
    is_collection: { type: 'boolean' },
    readonly: { type: 'boolean' },
    version: { enum: ['2', 2], readOnly: true, description: 'Only "2" lives here.', 'x-error-codes': { enum: 'invalid' } },
    resolve_time: readOnly('The original\'s automatic resolution delay: accepted and ignored (not stored).'),
    auto_resolve: readOnly('Accepted and ignored (not stored).'),
    url: readOnly(),
    has_events_assigned: readOnly(),
  },
};
