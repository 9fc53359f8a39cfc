import { AUTH_ERRORS, array, dateTime, envelope, errors, noContent, nullable, object, ok, openObject, page, pageParams, queryBoolean, queryDateTime, queryParams, readErrors, readOnly, str, uuid, writeErrors } from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/**
 * Subjects as the original's clients read and write them (issue 27), in the users API's
 * envelope `{data, status}` in every profile (CONTRACT §10). The fieldops profile adds
 * `revision`; the earthranger profile leaves it out (presentation/rules-subjects.ts).
 */

const tag = 'subjects';
const nullableText = (maxLength?: number): JSONSchema => nullable(str(maxLength));

const lastPosition = named('SubjectLastPosition', openObject(
  {
    type: { const: 'Feature' },
    geometry: object({ type: { const: 'Point' }, coordinates: array({ type: 'number' }, { minItems: 2, maxItems: 2 }) }),
    properties: openObject({
      title: str(), subject_type: str(), subject_subtype: str(), id: uuid, stroke: str(), 'stroke-opacity': { type: 'number' }, 'stroke-width': { type: 'number' },
      image: str(undefined, { description: 'The icon\'s absolute URL (relative without a request origin, on the sync feed).' }),
      last_voice_call_start_at: { type: ['string', 'null'] }, location_requested_at: { type: ['string', 'null'] }, radio_state_at: { type: ['string', 'null'] }, radio_state: str(),
      coordinateProperties: object({ time: dateTime }), DateTime: dateTime, time: dateTime, source: nullable(uuid),
    }, ['title', 'id', 'image', 'coordinateProperties']),
  },
  ['type', 'geometry', 'properties'],
));

/** Every subject body of the subject side: the list, detail and write answers, and the sync feed's. */
export const subjectDetail = named('SubjectDetail', object({
  content_type: { const: 'observations.subject' },
  id: uuid,
  name: str(),
  subject_type: str(),
  subject_subtype: str(),
  common_name: nullableText(),
  additional: { type: 'object' },
  created_at: dateTime,
  updated_at: dateTime,
  is_active: { type: 'boolean' },
  region: nullableText(),
  country: nullableText(),
  sex: nullableText(),
  hex: nullableText(),
  tracks_available: { type: 'boolean', description: 'Whether the subject has a position (the map\'s track toggle).' },
  image_url: str(undefined, { description: 'The icon, `/static/sprite-src/<icon>.svg` (by subtype, then type; `generic` otherwise).' }),
  subject_groups: array(str(), { description: 'Names of the groups the subject is in.' }),
  last_position_status: { type: ['object', 'null'] },
  last_position_date: nullable(dateTime),
  last_position: nullable(lastPosition),
  device_status_properties: { type: ['array', 'null'] },
  messaging: array(object({ source_provider: str(), url: str() }, ['source_provider', 'url']), { description: 'How to message the subject: its open assignment\'s source (empty: none).' }),
  url: str(),
  revision: { type: 'integer', minimum: 1, description: 'Fieldops profile only.' },
}, ['content_type', 'id', 'name', 'subject_type', 'subject_subtype', 'is_active', 'additional', 'created_at', 'updated_at', 'tracks_available', 'image_url', 'last_position', 'last_position_date', 'url']));

const SUBJECT_READ_ONLY = ['id', 'content_type', 'created_at', 'updated_at', 'tracks_available', 'image_url', 'last_position', 'last_position_date', 'last_position_status', 'device_status_properties', 'messaging', 'url', 'revision'];

const subjectBody = (create: boolean): JSONSchema => object(
  {
    name: str(100),
    subject_type: str(50),
    subject_subtype: str(50, { description: 'Default `ranger` (on create).' }),
    is_active: { type: 'boolean' },
    additional: { type: ['object', 'null'] },
    common_name: nullableText(100), sex: nullableText(20), region: nullableText(100), country: nullableText(100), hex: nullableText(10),
    subject_groups: { type: ['array', 'null'], items: str(100), maxItems: 20, description: 'Group names to join (created when missing); never leaves one.' },
    ...Object.fromEntries(SUBJECT_READ_ONLY.map((field) => [field, readOnly()])),
  },
  create ? ['name'] : [],
);

const subjectId = { id: { description: 'Subject id (UUID); another tenant\'s or a malformed one is 404.', schema: uuid } };
const groupId = { group_id: { description: 'Subject group id (UUID).', schema: uuid } };
const subjectRefs: JSONSchema = {
  type: ['array', 'object'],
  items: { anyOf: [openObject({ id: uuid }, ['id']), uuid] },
  minItems: 1,
  maxItems: 1000,
  description: '`[{"id": "<subject id>"}, ...]` (1 to 1000).',
};
const group = object({ id: uuid, name: str(), subjects: array(subjectDetail) });

export const subjectSchemas = {
  list: {
    summary: 'Subjects with their latest position (needs view_subject)',
    description: 'A plain list; with `page` or `page_size`, a page `{count, next, previous, results}` (as the original).',
    tags: [tag],
    query: queryParams({
      include_inactive: queryBoolean('Include deactivated subjects.'),
      updated_since: queryDateTime('Only subjects changed, or with a position recorded, at or after this time (incremental pulls).'),
      bbox: { type: 'string', description: '`west,south,east,north` (degrees): subjects whose last position is inside.', 'x-error-code': 'invalid' },
      subject_group: { type: 'string', description: 'A subject group id: its members only.' },
      name: { type: 'string', maxLength: 100, description: 'Case-insensitive part of the name.' },
      ...pageParams,
    }),
    responses: { 200: ok(envelope({ anyOf: [array(subjectDetail), page(subjectDetail)] })), ...errors(400, ...AUTH_ERRORS, 404) },
  },
  get: { summary: 'One subject with its latest position', tags: [tag], params: subjectId, responses: { 200: ok(envelope(subjectDetail)), ...readErrors() } },
  create: {
    summary: 'Creates a subject (needs add_subject)',
    tags: [tag],
    body: { kind: 'json', schema: subjectBody(true) },
    responses: { 201: { description: 'Created.', json: envelope(subjectDetail) }, ...writeErrors() },
  },
  patch: {
    summary: 'Changes a subject (needs change_subject); `is_active: false` deactivates it',
    tags: [tag],
    params: subjectId,
    body: { kind: 'json', schema: subjectBody(false) },
    responses: { 200: ok(envelope(subjectDetail)), ...writeErrors() },
  },
  remove: {
    summary: 'Deletes a subject (needs delete_subject): its status, memberships and assignments go; its observations stay, unattributed',
    tags: [tag],
    params: subjectId,
    responses: { 204: noContent, ...errors(...AUTH_ERRORS, 404) },
  },
  addMembers: {
    summary: 'Adds subjects to a subject group (needs change_subject)',
    tags: [tag],
    params: groupId,
    body: { kind: 'json', schema: subjectRefs },
    responses: { 200: ok(envelope(group), 'The group and the subjects added.'), ...writeErrors() },
  },
  removeMembers: {
    summary: 'Removes subjects from a subject group (needs change_subject); non-members are left alone',
    tags: [tag],
    params: groupId,
    body: { kind: 'json', schema: subjectRefs },
    responses: { 204: noContent, ...writeErrors() },
  },
} satisfies Record<string, RouteSchema>;
