import {
  AUTH_ERRORS, array, created, dateTime, errorBody, errors, fieldIssue, nullable, object, ok, priority, queryBoolean, queryParams,
  readErrors, readOnly, slug, str, uuid, writeErrors,
} from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/** Event categories, v1 event types and the v1 → v2 migration (CONTRACT §5). */

const categoriesTag = 'event categories';
const v1Tag = 'event types (v1)';

const category: JSONSchema = named('EventCategory', object({ id: uuid, value: str(50), display: str(255), ordernum: { type: ['number', 'null'] }, is_active: { type: 'boolean' } }));
const categoryBody = (required: string[]): JSONSchema =>
  object({ value: slug(50), display: str(255), ordernum: { type: ['number', 'null'] }, is_active: { type: 'boolean' }, id: readOnly(), created_at: readOnly(), updated_at: readOnly(), flag: readOnly(), permissions: readOnly() }, required);
const categoryKey = { key: { description: 'The category\'s value.', schema: str(100) } };

export const categorySchemas = {
  list: { summary: 'List event categories', tags: [categoriesTag], query: queryParams({ include_inactive: queryBoolean('Include deactivated categories.') }), responses: { 200: ok(array(category)), ...errors(400, ...AUTH_ERRORS) } },
  create: { summary: 'Create an event category', tags: [categoriesTag], body: { kind: 'json', schema: categoryBody(['value']) }, responses: { 201: created(category), ...writeErrors(), ...errors(409) } },
  get: { summary: 'One event category', tags: [categoriesTag], params: categoryKey, responses: { 200: ok(category), ...readErrors() } },
  patch: { summary: 'Change an event category', tags: [categoriesTag], params: categoryKey, body: { kind: 'json', schema: categoryBody([]) }, responses: { 200: ok(category), ...writeErrors(), ...errors(409) } },
} satisfies Record<string, RouteSchema>;

/** The v1 paths of the same categories (er-client post_event_category / patch_event_category), in the v1 list's shape. */
const categoryV1: JSONSchema = named('EventCategoryV1', object({ id: uuid, value: str(50), display: str(255), ordernum: { type: ['number', 'null'] }, is_active: { type: 'boolean' }, flag: { enum: ['user', 'system'] } }));
export const categoryV1Schemas = {
  create: { summary: 'Create an event category (v1 path)', tags: [categoriesTag], body: { kind: 'json', schema: categoryBody(['value']) }, responses: { 201: created(categoryV1), ...writeErrors(), ...errors(409) } },
  patch: {
    summary: 'Change an event category (v1 path)', tags: [categoriesTag], params: { key: { description: 'The category\'s id (er-client sends it) or value.', schema: str(100) } },
    body: { kind: 'json', schema: categoryBody([]) }, responses: { 200: ok(categoryV1), ...writeErrors(), ...errors(409) },
  },
} satisfies Record<string, RouteSchema>;

const v1Type: JSONSchema = named('EventTypeV1', object({
  id: uuid,
  value: str(50),
  display: str(255),
  category: str(50),
  default_priority: priority,
  is_active: { type: 'boolean' },
  version: { const: '1' },
  migrated_to: nullable(uuid),
  schema: str(undefined, { description: 'The v1 document as stored (template text).' }),
  updated_at: dateTime,
}));

function v1Body(required: string[]): JSONSchema {
  return object(
    {
      value: slug(50),
      display: str(255),
      category: str(50),
      default_priority: priority,
      is_active: { type: 'boolean' },
      schema: {
        type: ['string', 'object'],
        description: 'The v1 document `{"schema": {draft-04...}, "definition": [...]}` as text (with template tags such as `{{enum___<field>___values}}`), or the tag-free JSON itself. At most 256 KiB.',
        'x-error-code': 'schema_structure_error',
      },
      id: readOnly(), version: readOnly(), created_at: readOnly(), updated_at: readOnly(), migrated_to: readOnly(),
      // The original's v1 fields (issue 27): accepted and ignored.
      icon: readOnly('Accepted and ignored.'), icon_id: readOnly(), ordernum: readOnly('Accepted and ignored.'), geometry_type: readOnly('Accepted and ignored.'), is_collection: readOnly('Accepted and ignored.'), url: readOnly(),
    },
    required,
  );
}
const v1Key = { key: { description: 'The v1 event type\'s value.', schema: str(100) } };

export const v1Schemas = {
  create: { summary: 'Store a v1 event type (its template text is checked)', tags: [v1Tag], body: { kind: 'json', schema: v1Body(['value', 'schema']) }, responses: { 201: created(v1Type), ...writeErrors(), ...errors(409) } },
  get: { summary: 'One v1 event type', tags: [v1Tag], params: v1Key, responses: { 200: ok(v1Type), ...readErrors() } },
  replace: { summary: 'Replace a v1 event type', tags: [v1Tag], params: v1Key, body: { kind: 'json', schema: v1Body(['value', 'schema']) }, responses: { 200: ok(v1Type), ...writeErrors(), ...errors(409) } },
  patch: { summary: 'Change a v1 event type', tags: [v1Tag], params: v1Key, body: { kind: 'json', schema: v1Body([]) }, responses: { 200: ok(v1Type), ...writeErrors(), ...errors(409) } },
  render: {
    summary: 'The v1 document rendered for v1 clients (tags replaced from choices)',
    tags: [v1Tag], params: v1Key,
    responses: { 200: ok({ type: 'object', description: 'The rendered v1 document.' }), ...readErrors() },
  },
} satisfies Record<string, RouteSchema>;

const migrationEntry: JSONSchema = named('MigrationEntry', object({
  event_type: str(),
  v2_schema: { type: ['object', 'null'], description: 'The converted `{json, ui}` document.' },
  new_choices: array(object({ field: str(), value: str(), display: str(), ordernum: { type: 'number' } })),
  warnings: array(fieldIssue),
  errors: array(fieldIssue),
}));

export const migrate: RouteSchema = {
  summary: 'Migrate v1 event types to v2 (dry run by default)',
  description: 'A real run converts every listed type in one transaction, all or none, creating choices for inline enums; when any type cannot be converted it is 400 and nothing changes.',
  tags: [v1Tag],
  body: {
    kind: 'json',
    schema: {
      type: 'object',
      properties: {
        event_types: array({ type: 'string', maxLength: 50 }, { minItems: 1, maxItems: 200, description: 'v1 event type values.', 'x-error-code': 'invalid' }),
        dry_run: { type: 'boolean', description: 'Default true.' },
      },
      required: ['event_types'],
      'x-error-codes': { required: 'invalid' },
    },
  },
  responses: {
    200: ok(object({ applied: { type: 'boolean' }, results: array(migrationEntry) })),
    400: { description: 'Invalid input, or a real run refused (then with `applied: false` and every result).', json: { ...errorBody, properties: { ...(errorBody.properties as object), applied: { const: false }, results: array(migrationEntry) } } },
    ...errors(...AUTH_ERRORS, 413, 415),
  },
};
