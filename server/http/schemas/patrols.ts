import {
  AUTH_ERRORS, array, latLon, created, noContent, dateTime, errors, nullable, nullableDateTime, object, ok, page, pageParams, priority, queryBoolean, queryDateTime, queryParams,
  readErrors, readOnly, str, uuid, writeErrors,
} from './common.js';
import { subject } from './choices.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/** Patrols, segments and notes (CONTRACT §6); files are in patrol-files.ts. */

const tag = 'patrols';

/**
 * A record's `revision` (issue 26 §2), in every fieldops body of an event, patrol, segment and
 * subject. NOTE: required here because the response check sees the fieldops body; the
 * earthranger profile strips it (presentation/rules.ts).
 */
export const recordRevision: JSONSchema = {
  type: 'integer',
  minimum: 1,
  description: 'The record\'s revision: 1 on create, higher after every change. An update based on it names it in `Fieldops-Base-Revision`. Fieldops profile only: the earthranger profile leaves it out, as the original does.',
};

/** How a PATCH/PUT (or an event's DELETE) names its base: documented on each such route. */
export const BASE_REVISION_DOC =
  '`Fieldops-Base-Revision: <n>` (optional): the `revision` of the record the change was based on (digits only, 1 to 2^53-1; anything else is 400, field `Fieldops-Base-Revision`, code `invalid`). With it the server merges field by field: changes made since that revision to fields this request does not touch are kept.';

const userRef = object({ id: uuid, username: nullable(str()) });

const leader: JSONSchema = {
  description: 'The full subject (`content_type: observations.subject`) or user (`accounts.user`), or null.',
  anyOf: [subject, object({ content_type: { const: 'accounts.user' }, username: str(), created_at: dateTime, id: uuid, name: str(), email: str() }), { type: 'null' }],
};

export const segment: JSONSchema = named('PatrolSegment', object({
  id: uuid,
  patrol: uuid,
  patrol_type: nullable(str(undefined, { description: 'The patrol type\'s value.' })),
  leader,
  scheduled_start: nullableDateTime,
  scheduled_end: nullableDateTime,
  time_range: object({ start_time: nullableDateTime, end_time: nullableDateTime }),
  start_location: nullable(latLon),
  end_location: nullable(latLon),
  image_url: nullable({ type: 'string', format: 'uri' }),
  icon_id: nullable(str()),
  events: array(object({ id: uuid })),
  updated_at: dateTime,
  revision: { ...recordRevision, description: 'Its patrol\'s revision when the segment last changed (one counter per patrol). Fieldops profile only.' },
}));

export const note: JSONSchema = named('PatrolNote', object({ id: uuid, text: str(), created_by: nullable(userRef), created_at: dateTime, updated_at: dateTime }));

export const patrolFile: JSONSchema = named('PatrolFile', object({
  id: uuid,
  patrol: uuid,
  usercontent_id: uuid,
  usercontent_type: { const: 'activity.patrolfile' },
  filename: str(),
  file_type: str(undefined, { description: 'Sniffed from the content.' }),
  size: { type: 'integer' },
  comment: str(),
  ordernum: { type: ['integer', 'null'] },
  url: { type: 'string', format: 'uri', description: 'The bytes.' },
  created_at: dateTime,
  updated_at: dateTime,
}));

const patrolUpdate = object({
  message: str(), time: dateTime, type: str(),
  user: {
    type: 'object',
    description: 'The account that made the change (`id` absent for the system), as the original shows it.',
    properties: { id: uuid, username: nullable(str()), first_name: str(), last_name: str(), content_type: { const: 'accounts.user' } },
    required: ['username', 'first_name', 'last_name', 'content_type'],
  },
});

export const patrol: JSONSchema = named('Patrol', object({
  id: uuid,
  serial_number: { type: 'integer', description: 'Per tenant, increasing.' },
  title: nullable(str(255)),
  objective: nullable(str()),
  priority,
  state: { enum: ['open', 'done', 'cancelled'] },
  notes: array(note),
  files: array(patrolFile),
  patrol_segments: array(segment),
  updates: array(patrolUpdate),
  created_at: dateTime,
  updated_at: dateTime,
  revision: { ...recordRevision, description: 'Moves with every change of the patrol\'s fields or of a segment (notes and files leave it). Fieldops profile only.' },
}));

// ---- write bodies: absent leaves a field unchanged, null clears it ----

const dateInput = { ...nullableDateTime, description: 'ISO 8601 with an offset, or null.', 'x-error-code': 'invalid_datetime' };
const locationInput: JSONSchema = { ...nullable(latLon), additionalProperties: true, 'x-error-code': 'invalid_location', description: '{latitude: -90..90, longitude: -180..180}, or null.' };
const leaderInput: JSONSchema = {
  type: ['object', 'null'],
  properties: { content_type: { enum: ['observations.subject', 'accounts.user'] }, id: { type: 'string', format: 'uuid' } },
  description: '`{content_type: "observations.subject" | "accounts.user", id}`, or `{}` / null for none.',
  'x-error-code': 'invalid_leader',
};

function segmentBody(nested: boolean, required: string[] = []): JSONSchema {
  const properties: Record<string, JSONSchema> = {
    id: { type: 'string', format: 'uuid', description: 'Client-supplied on create; on a nested segment, names the one to update.', 'x-error-code': 'invalid' },
    patrol: nested
      ? readOnly('Not allowed on a nested segment (the specification): 400 `not_allowed` in the fieldops profile; the earthranger profile accepts and ignores it, as the original does.')
      : { type: 'string', format: 'uuid', description: 'The patrol (required on create).', 'x-error-code': 'invalid' },
    patrol_type: { type: ['string', 'null'], maxLength: 100, description: 'A patrol type\'s value; unknown is 400.', 'x-error-code': 'invalid_type' },
    leader: leaderInput,
    scheduled_start: dateInput,
    scheduled_end: { ...dateInput, description: 'After scheduled_start.' },
    time_range: { type: ['object', 'null'], properties: { start_time: dateInput, end_time: dateInput }, description: 'The actual times; null clears both.' },
    start_location: locationInput,
    end_location: locationInput,
  };
  for (const name of ['image_url', 'icon_id', 'events', 'updates', 'created_at', 'updated_at', 'revision']) properties[name] = readOnly();
  // The web app's "new patrol" sends the type's default priority on its segment; the original ignores it.
  properties.priority = readOnly('Accepted and ignored (the web app sends it on a new patrol\'s segment; a segment has no priority).');
  return object(properties, required, nested ? { 'x-error-codes': { type: 'invalid_type' } } : {});
}

const patrolBody: JSONSchema = named('PatrolWrite', object(
  {
    id: { type: 'string', format: 'uuid', description: 'Client-supplied id (a duplicate is 409).', 'x-error-code': 'invalid' },
    title: { type: ['string', 'null'], maxLength: 255 },
    objective: { type: ['string', 'null'], maxLength: 10000 },
    priority,
    state: { enum: ['open', 'done', 'cancelled'] },
    patrol_segments: array(named('PatrolSegmentNestedWrite', segmentBody(true)), { maxItems: 100, description: 'Segments with an id are updated, others created; none deleted.', 'x-error-codes': { type: 'invalid', maxItems: 'invalid' } }),
    notes: array(
      // No `type` on an item: anything else is reported on its text, as the reader does.
      { properties: { id: { type: 'string', format: 'uuid', 'x-error-code': 'invalid' }, text: { type: 'string', minLength: 1, maxLength: 10000, 'x-error-code': 'invalid' } }, required: ['text'], 'x-error-codes': { required: 'invalid' } },
      { maxItems: 100, description: '`[{text}]`: notes to add (with an id: to update).', 'x-error-codes': { type: 'invalid', maxItems: 'invalid' } },
    ),
    // The web app's "new patrol" always sends these; the original ignores them.
    icon_id: readOnly('Accepted and ignored (the icon is the first segment\'s patrol type\'s).'), is_collection: readOnly('Accepted and ignored.'),
    serial_number: readOnly(), updates: readOnly(), files: readOnly(), created_at: readOnly(), updated_at: readOnly(), revision: readOnly(),
  },
  [],
));

/** The text may not be blank where it is required (POST, PUT). */
const noteBody = (required: string[]): JSONSchema =>
  object(
    { text: str(10000, required.length ? { minLength: 1, 'x-error-codes': { minLength: 'blank' } } : {}), id: readOnly(), created_at: readOnly(), updated_at: readOnly(), created_by: readOnly(), patrol: readOnly() },
    required,
  );

const patrolId = { id: { description: 'Patrol id (UUID).', schema: uuid } };
const segmentId = { id: { description: 'Segment id (UUID).', schema: uuid } };
const noteParams = { ...patrolId, noteId: { description: 'Note id (UUID).', schema: uuid } };
const segmentCreate = named('PatrolSegmentCreate', segmentBody(false, ['patrol']));
const segmentUpdate = named('PatrolSegmentUpdate', segmentBody(false));

const patrolUpdateDoc = `${BASE_REVISION_DOC}\n\nNo validators are served (rule 8). \`If-Match\` with a patrol version tag, as older CLIs queued it, is still checked: 412 unless it names the patrol's current version.`;

const filterParam = str(undefined, {
  description: 'JSON `{date_range: {lower, upper}, patrols_overlap_daterange (default true), text, patrol_type: [ids or values], tracked_by: [ids]}`; invalid JSON or unknown keys are 400.',
});
const statusParam = array({ enum: ['scheduled', 'active', 'overdue', 'done', 'cancelled'] }, { description: 'Repeatable state filter.', 'x-error-code': 'invalid' });

export const patrolSchemas = {
  list: {
    summary: 'List patrols (open < done < cancelled, then newest)', tags: [tag],
    query: queryParams({ filter: filterParam, status: statusParam, exclude_empty_patrols: queryBoolean('Leave out patrols without segments.'), updated_since: queryDateTime('Only patrols changed at or after this time (incremental pulls).'), ...pageParams }),
    responses: { 200: ok(page(patrol)), ...errors(400, ...AUTH_ERRORS, 404) },
  },
  create: { summary: 'Create a patrol (with nested segments and notes)', tags: [tag], body: { kind: 'json', schema: patrolBody }, responses: { 201: created(patrol), ...writeErrors(), ...errors(409) } },
  get: {
    summary: 'One patrol',
    description: 'No validators (specification rule 8): no `ETag`, no `Last-Modified`, never a 304. Its `revision` is what an update names as its base.',
    tags: [tag], params: patrolId, responses: { 200: ok(patrol), ...readErrors() },
  },
  replace: { summary: 'Update a patrol (fields left out stay as they are)', description: patrolUpdateDoc, tags: [tag], params: patrolId, body: { kind: 'json', schema: patrolBody }, responses: { 200: ok(patrol), ...writeErrors(), ...errors(409, 412) } },
  patch: { summary: 'Update a patrol', description: patrolUpdateDoc, tags: [tag], params: patrolId, body: { kind: 'json', schema: patrolBody }, responses: { 200: ok(patrol), ...writeErrors(), ...errors(409, 412) } },
  remove: {
    summary: 'Delete a patrol (with its segments, notes, files and updates)',
    description: `Needs delete_patrol. The patrol leaves the sync feed as a tombstone; the events its segments listed stay (unlinked). ${BASE_REVISION_DOC} A patrol changed since that revision is 412 \`changed_since_base\`.`,
    tags: [tag], params: patrolId, responses: { 204: noContent, ...readErrors(), ...errors(409, 412) },
  },

  listSegments: { summary: 'List patrol segments', tags: [tag], query: queryParams(pageParams), responses: { 200: ok(page(segment)), ...errors(400, ...AUTH_ERRORS, 404) } },
  createSegment: { summary: 'Create a segment of a patrol', tags: [tag], body: { kind: 'json', schema: segmentCreate }, responses: { 201: created(segment), ...writeErrors(), ...errors(409) } },
  getSegment: { summary: 'One segment', tags: [tag], params: segmentId, responses: { 200: ok(segment), ...readErrors() } },
  replaceSegment: { summary: 'Update a segment', description: BASE_REVISION_DOC, tags: [tag], params: segmentId, body: { kind: 'json', schema: segmentUpdate }, responses: { 200: ok(segment), ...writeErrors(), ...errors(409) } },
  patchSegment: { summary: 'Update a segment', description: BASE_REVISION_DOC, tags: [tag], params: segmentId, body: { kind: 'json', schema: segmentUpdate }, responses: { 200: ok(segment), ...writeErrors(), ...errors(409) } },

  listNotes: { summary: 'Notes of a patrol', tags: [tag], params: patrolId, responses: { 200: ok(array(note)), ...readErrors() } },
  createNote: {
    summary: 'Add a note to a patrol', description: 'The client may supply the note\'s `id` (a UUID); an id that exists already is 409 and changes nothing (offline retries).',
    tags: [tag], params: patrolId, body: { kind: 'json', schema: { ...noteBody(['text']), properties: { ...(noteBody(['text']).properties as object), id: uuid } } }, responses: { 201: created(note), ...writeErrors(), ...errors(409) },
  },
  getNote: { summary: 'One note', tags: [tag], params: noteParams, responses: { 200: ok(note), ...readErrors() } },
  replaceNote: { summary: 'Replace a note\'s text', tags: [tag], params: noteParams, body: { kind: 'json', schema: noteBody(['text']) }, responses: { 200: ok(note), ...writeErrors() } },
  patchNote: { summary: 'Change a note\'s text', tags: [tag], params: noteParams, body: { kind: 'json', schema: noteBody([]) }, responses: { 200: ok(note), ...writeErrors() } },
} satisfies Record<string, RouteSchema>;
