import {
  AUTH_ERRORS, array, created, dateTime, errors, noContent, notModified, nullable, object, ok, page, pageParams, queryBoolean, queryParams,
  readErrors, readOnly, str, uuid, writeErrors,
} from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/** Choice lists, choices.json (CONTRACT §4) and the tracked-by schema (CONTRACT §7). */

const tag = 'choices';
const FIELD_PATTERN = '^[A-Za-z0-9_-]{1,40}$';

const choice: JSONSchema = named('Choice', object({
  id: uuid,
  field: str(40),
  value: str(100),
  display: str(100),
  ordernum: { type: ['number', 'null'] },
  icon: str(255),
  is_active: { type: 'boolean' },
  created_at: dateTime,
  updated_at: dateTime,
}));

function choiceBody(required: string[]): JSONSchema {
  return object(
    {
      field: str(40, { pattern: FIELD_PATTERN, description: 'The list name.' }),
      value: str(100, { pattern: '^[a-z0-9_-]+$' }),
      display: str(100, { description: 'Defaults to the value.' }),
      ordernum: { type: ['number', 'null'], 'x-error-code': 'invalid_type' },
      icon: str(255),
      is_active: { type: 'boolean' },
      id: readOnly(), created_at: readOnly(), updated_at: readOnly(),
    },
    required,
  );
}

const idParam = { id: { description: 'Choice id (UUID).', schema: uuid } };

export const choicesJson: RouteSchema = {
  summary: 'Active choices of one or more lists, as a JSON Schema (what `$ref`s point at)',
  tags: [tag],
  query: queryParams(
    { field: array({ type: 'string', description: 'A list name, or several separated by commas.' }, { description: 'Repeatable; `field=a,b` returns both lists, in that order.', 'x-error-code': 'invalid' }) },
    ['field'],
  ),
  responses: {
    200: ok(
      object({
        $id: { type: 'string', format: 'uri', description: 'The absolute URL of the request.' },
        description: str(undefined, { description: 'What the document lists (the list names asked for).' }),
        $schema: { const: 'https://json-schema.org/draft/2020-12/schema' },
        type: { const: 'string' },
        title: { const: 'Choices' },
        oneOf: array(object({ const: str(), title: str(), description: str(undefined, { description: 'The list name.' }) })),
      }),
    ),
    ...errors(400, ...AUTH_ERRORS),
  },
};

export const choiceSchemas = {
  list: {
    summary: 'List choices (paginated, ETag)', tags: [tag],
    query: queryParams({ field: str(undefined, { description: 'Only this list.' }), include_inactive: queryBoolean('Include deactivated choices.'), ...pageParams }),
    responses: { 200: ok(page(choice)), 304: notModified, ...errors(400, ...AUTH_ERRORS, 404) },
  },
  get: { summary: 'One choice', tags: [tag], params: idParam, responses: { 200: ok(choice), ...readErrors() } },
  create: { summary: 'Create a choice (unique field + value)', tags: [tag], body: { kind: 'json', schema: choiceBody(['field', 'value']) }, responses: { 201: created(choice), ...writeErrors(), ...errors(409) } },
  replace: { summary: 'Replace a choice', tags: [tag], params: idParam, body: { kind: 'json', schema: choiceBody(['field', 'value']) }, responses: { 200: ok(choice), ...writeErrors(), ...errors(409) } },
  patch: { summary: 'Change some fields of a choice', tags: [tag], params: idParam, body: { kind: 'json', schema: choiceBody([]) }, responses: { 200: ok(choice), ...writeErrors(), ...errors(409) } },
  remove: { summary: 'Deactivate a choice (documents that reference it keep working)', tags: [tag], params: idParam, responses: { 204: noContent, ...readErrors() } },
} satisfies Record<string, RouteSchema>;

/** A subject as the tracked-by schema and segments show it. */
export const subject: JSONSchema = named('Subject', object({
  content_type: { const: 'observations.subject' },
  id: uuid,
  name: str(),
  subject_type: str(),
  subject_subtype: str(),
  is_active: { type: 'boolean' },
  additional: { type: 'object' },
  created_at: dateTime,
  updated_at: dateTime,
  revision: { type: 'integer', minimum: 1, description: 'The subject\'s revision (moves with every change). Fieldops profile only: the earthranger profile leaves it out.' },
}));

export const trackedBy: RouteSchema = {
  summary: 'Who may lead a patrol segment (a draft-04 schema with `enum` and `enum_ext`)',
  description: 'ETag only (If-None-Match), salted with the caller and the `User-Profile` header.',
  tags: ['patrols'],
  responses: {
    200: ok(
      object({
        $schema: { const: 'http://json-schema.org/draft-04/schema#' },
        type: { const: 'object' },
        required: array({ type: 'string' }),
        description: str(),
        dependencies: { type: 'object' },
        properties: object({
          leader: object({ type: { const: 'object' }, title: str(), enum: array(subject), enum_ext: array(object({ title: str(), value: subject })) }),
        }),
      }),
    ),
    304: notModified,
    ...errors(...AUTH_ERRORS),
  },
};

export const nullableSubject = nullable(subject);
