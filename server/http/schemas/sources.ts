import { AUTH_ERRORS, array, dateTime, envelope, errors, noContent, nullable, object, ok, page, pageParams, queryParams, readErrors, readOnly, str, uuid, writeErrors } from './common.js';
import { subjectDetail } from './subjects.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/**
 * Sources (collars, radios), their providers, and assignments of sources to subjects over a
 * time range (issue 27), in the users API's envelope `{data, status}` in every profile.
 * Lists are pages `{count, next, previous, results}`.
 */

const tag = 'sources';

export const sourceBody = named('Source', object({
  id: uuid,
  source_type: str(),
  manufacturer_id: str(),
  model_name: str(),
  additional: { type: 'object' },
  provider: str(undefined, { description: 'The provider\'s key.' }),
  content_type: { const: 'observations.source' },
  created_at: dateTime,
  updated_at: dateTime,
  url: str(),
}));

const range = named('AssignedRange', object({ lower: dateTime, upper: nullable(dateTime), bounds: { const: '[)' } }));

const assignment = named('SubjectSource', object({
  id: uuid,
  subject: uuid,
  source: uuid,
  assigned_range: range,
  additional: { type: 'object' },
  created_at: dateTime,
  updated_at: dateTime,
}));

const provider = named('SourceProvider', object({
  id: uuid,
  provider_key: str(),
  display_name: str(),
  additional: { type: 'object' },
  created_at: dateTime,
  updated_at: dateTime,
}));

const sourceWrite = (create: boolean): JSONSchema => object(
  {
    manufacturer_id: str(200),
    source_type: str(50, { description: 'Default `tracking-device`.' }),
    model_name: str(100),
    additional: { type: ['object', 'null'] },
    provider: str(100, { description: 'A provider key or id (a new key creates the provider); default `default`. Ignored on PATCH.' }),
    ...Object.fromEntries(['id', 'content_type', 'created_at', 'updated_at', 'url'].map((field) => [field, readOnly()])),
  },
  create ? ['manufacturer_id'] : [],
);

const rangeWrite: JSONSchema = object({
  lower: { type: ['string', 'null'], format: 'date-time', description: 'Default now (on create).' },
  upper: { type: ['string', 'null'], format: 'date-time', description: 'null or absent: open ended.' },
  bounds: readOnly('Always `[)`; accepted and ignored.'),
}, []);

const assignmentWrite = (create: boolean): JSONSchema => object(
  {
    subject: str(200, { description: 'Subject id.' }),
    source: str(200, { description: 'Source id or manufacturer id.' }),
    assigned_range: rangeWrite,
    additional: { type: ['object', 'null'] },
    ...Object.fromEntries(['id', 'created_at', 'updated_at'].map((field) => [field, readOnly()])),
  },
  create ? ['subject', 'source'] : [],
);

const providerWrite = (create: boolean): JSONSchema => object(
  { provider_key: str(100, { description: 'Ignored on PATCH.' }), display_name: str(100), additional: { type: ['object', 'null'] }, ...Object.fromEntries(['id', 'created_at', 'updated_at'].map((field) => [field, readOnly()])) },
  create ? ['provider_key'] : [],
);

const sourceKey = { id: { description: 'A source id, or a manufacturer id (another tenant\'s: 404; one that several providers\' sources share: 400 `ambiguous_source` unless `provider` picks one).', schema: str(200) } };
/** Picks among sources of several providers that share the path's manufacturer id. */
const providerQuery = { provider: str(100, { description: 'A provider key or id: which provider\'s source a shared manufacturer id names.' }) };
const subjectId = { id: { description: 'Subject id (UUID).', schema: uuid } };
const withRange = object({ ...(sourceBody.properties as Record<string, JSONSchema>), assigned_range: range, subjectsource_id: uuid });

export const sourceSchemas = {
  list: { summary: 'Sources (needs view_source)', tags: [tag], query: queryParams({ ...pageParams }), responses: { 200: ok(envelope(page(sourceBody))), ...errors(400, ...AUTH_ERRORS, 404) } },
  get: { summary: 'One source, by id or manufacturer id', tags: [tag], params: sourceKey, query: queryParams(providerQuery), responses: { 200: ok(envelope(sourceBody)), ...readErrors() } },
  create: { summary: 'Creates a source (needs add_source); 409 when its provider has that manufacturer id', tags: [tag], body: { kind: 'json', schema: sourceWrite(true) }, responses: { 201: { description: 'Created.', json: envelope(sourceBody) }, ...writeErrors(), ...errors(409) } },
  patch: { summary: 'Changes a source (needs change_source)', tags: [tag], params: sourceKey, query: queryParams(providerQuery), body: { kind: 'json', schema: sourceWrite(false) }, responses: { 200: ok(envelope(sourceBody)), ...writeErrors() } },
  remove: { summary: 'Deletes a source with its observations and assignments (needs delete_source)', tags: [tag], params: sourceKey, query: queryParams({ ...providerQuery, async: { type: 'string', description: 'Accepted and ignored: the deletion is always done before the answer.' } }), responses: { 204: noContent, ...errors(400, ...AUTH_ERRORS, 404) } },
  subjects: { summary: 'The subjects a source was ever assigned to (newest assignment first)', tags: [tag], params: sourceKey, query: queryParams(providerQuery), responses: { 200: ok(envelope(array(subjectDetail))), ...readErrors() } },
  ofSubject: { summary: 'The sources a subject was ever assigned, each with its `assigned_range`', tags: [tag], params: subjectId, responses: { 200: ok(envelope(array(withRange))), ...readErrors() } },
  assignmentsOfSubject: { summary: 'A subject\'s assignments', tags: [tag], params: subjectId, responses: { 200: ok(envelope(array(assignment))), ...readErrors() } },
  providers: { summary: 'Source providers (needs view_source)', tags: [tag], query: queryParams({ ...pageParams }), responses: { 200: ok(envelope(page(provider))), ...errors(400, ...AUTH_ERRORS, 404) } },
  createProvider: { summary: 'Creates a source provider (needs add_source); 409 when the key exists', tags: [tag], body: { kind: 'json', schema: providerWrite(true) }, responses: { 201: { description: 'Created.', json: envelope(provider) }, ...writeErrors(), ...errors(409) } },
  patchProvider: { summary: 'Changes a source provider\'s display name or `additional` (needs change_source)', tags: [tag], params: { id: { description: 'Provider id (UUID).', schema: uuid } }, body: { kind: 'json', schema: providerWrite(false) }, responses: { 200: ok(envelope(provider)), ...writeErrors() } },
  assignments: {
    summary: 'Assignments of sources to subjects (needs view_source)',
    tags: [tag],
    query: queryParams({ subjects: { type: 'string', description: 'Comma-separated subject ids.' }, sources: { type: 'string', description: 'Comma-separated source ids.' }, ...pageParams }),
    responses: { 200: ok(envelope(page(assignment))), ...errors(400, ...AUTH_ERRORS, 404) },
  },
  createAssignment: { summary: 'Assigns a source to a subject over `assigned_range` (needs change_source)', description: 'An open assignment of the source that started earlier is closed where this one starts (the collar moved); any other overlap with the source\'s assignments is a 409.', tags: [tag], body: { kind: 'json', schema: assignmentWrite(true) }, responses: { 201: { description: 'Created.', json: envelope(assignment) }, ...writeErrors(), ...errors(409) } },
  patchAssignment: { summary: 'Changes an assignment\'s range, `subject` or `additional` (needs change_source)', description: 'A range that would overlap another assignment of the source is a 409; another `source` is a 400 (delete and create instead). The fixes it covers, and the last positions of the subjects involved, follow.', tags: [tag], params: { id: { description: 'Assignment id (UUID).', schema: uuid } }, body: { kind: 'json', schema: assignmentWrite(false) }, responses: { 200: ok(envelope(assignment)), ...writeErrors(), ...errors(409) } },
  removeAssignment: { summary: 'Deletes an assignment (needs change_source)', tags: [tag], params: { id: { description: 'Assignment id (UUID).', schema: uuid } }, responses: { 204: noContent, ...errors(...AUTH_ERRORS, 404) } },
} satisfies Record<string, RouteSchema>;
