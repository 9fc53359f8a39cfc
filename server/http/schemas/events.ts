import {
  AUTH_ERRORS, array, latLon, created, dateTime, errors, noContent, notModified, nullable, object, ok, page, pageParams, priority, queryParams, readErrors, readOnly, str, uuid, writeErrors,
} from './common.js';
import { BASE_REVISION_DOC, patrolFile, recordRevision } from './patrols.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';
import { eventFeature, eventMapSchemas, relationshipItem } from './events-map.js';

/** Events and segment events (CONTRACT §5b), and patrol files (CONTRACT §6). */

const tag = 'events';

const userRef: JSONSchema = named('UserRef', object({
  id: nullable(uuid), username: str(), first_name: str(), last_name: str(), content_type: { const: 'accounts.user' },
}));

const eventFile: JSONSchema = named('EventFile', object({
  id: uuid, filename: str(), file_type: str(undefined, { description: 'The sniffed content type.' }), size: { type: 'integer' }, comment: str(),
  url: { type: 'string', format: 'uri', description: 'The bytes (a download).' }, created_by: nullable(userRef), created_at: dateTime, updated_at: dateTime,
}));

const eventNote: JSONSchema = named('EventNote', object({ id: uuid, event: uuid, text: str(), created_by: nullable(userRef), created_at: dateTime, updated_at: dateTime }));

const eventUpdate: JSONSchema = named('EventUpdate', object({
  message: str(), time: dateTime,
  type: str(undefined, { description: 'add_event, update_event, update_event_state, add_note, update_note, delete_note, add_eventfile, delete_eventfile.' }),
  user: userRef,
}));

const renderedDetail: JSONSchema = named('RenderedDetail', object({
  key: str(undefined, { description: 'The key in `event_details`.' }),
  title: str(undefined, { description: 'The recorded revision\'s title of the field; the key when that revision does not describe it.' }),
  value: { description: 'The value as stored.' },
  display: str(undefined, { description: 'The choice\'s display name for a choice value (comma-separated for a list), else the value as text.' }),
}));

/** Every member of an event but `rendered_details` (present only when asked for). */
const EVENT_REQUIRED = [
  'id', 'serial_number', 'event_type', 'title', 'time', 'location', 'priority', 'state', 'event_details', 'patrol_segments', 'reported_by', 'is_collection',
  'event_category', 'icon_id', 'image_url', 'geojson', 'contains', 'is_contained_in', 'is_linked_to', 'notes', 'files', 'updates', 'url', 'created_at',
  'updated_at', 'revision', 'schema_revision',
];

const event: JSONSchema = named('Event', object({
  id: uuid,
  serial_number: { type: 'integer', minimum: 1, description: 'Per tenant, increasing.' },
  event_type: str(undefined, { description: 'The event type\'s value (a v2 type, or a v1 type).' }),
  title: nullable(str()),
  time: dateTime,
  location: nullable(latLon),
  priority,
  state: { enum: ['new', 'active', 'resolved'] },
  event_details: { type: 'object', description: 'Validated against the event type\'s schema (v2, or the rendered v1 draft-04 schema), choices resolved.' },
  patrol_segments: array(uuid),
  reported_by: nullable(userRef),
  is_collection: { type: 'boolean' },
  event_category: nullable(str(undefined, { description: 'The type\'s category value (null when the type is gone).' })),
  icon_id: str(undefined, { description: 'The type\'s icon, else its value.' }),
  image_url: { type: 'string', format: 'uri', description: 'The type\'s icon under /static/.' },
  geojson: nullable(eventFeature),
  contains: array(relationshipItem, { description: 'An incident\'s events, in order.' }),
  is_contained_in: array(relationshipItem, { description: 'The incidents that contain this event.' }),
  is_linked_to: array(relationshipItem, { description: 'Always empty (no `is_linked_to` relationships here).' }),
  notes: array(eventNote),
  files: array(eventFile),
  updates: array(eventUpdate, { description: 'The history, newest first.' }),
  url: { type: 'string', format: 'uri' },
  created_at: dateTime,
  updated_at: dateTime,
  revision: { ...recordRevision, description: 'Moves with every change of the event, its notes or its files (the ETag names it too). Fieldops profile only.' },
  schema_revision: {
    type: ['integer', 'null'], minimum: 1,
    description: 'The revision (history `sequence`) of the v2 event type the details were last written against; null for a v1 type or an event stored before revisions were kept. Fieldops profile only.',
  },
  rendered_details: array(renderedDetail, { description: 'Only with `?render=as_recorded` (fieldops profile): the details presented through the recorded revision.' }),
}, EVENT_REQUIRED));

const READ_ONLY_ECHOES = [
  'serial_number', 'files', 'created_at', 'updated_at', 'url', 'reported_by', 'updates', 'is_collection', 'event_category',
  'icon_id', 'priority_label', 'sort_at', 'image_url', 'geojson', 'geometry', 'is_contained_in', 'related_subjects', 'patrols',
  'provenance', 'message', 'comment', 'attributes', 'end_time', 'is_linked_to', 'contains', 'event_time', 'revision', 'schema_revision', 'rendered_details',
];

function eventBody(required: string[]): JSONSchema {
  return object(
    {
      id: { type: 'string', format: 'uuid', description: 'Client-supplied id (a duplicate is 409); on PATCH, the id in the URL.', 'x-error-code': 'invalid' },
      event_type: str(50),
      title: nullable(str(255)),
      time: { type: 'string', format: 'date-time', 'x-error-code': 'invalid_datetime' },
      location: { type: ['object', 'null'], properties: (latLon.properties as object), required: ['latitude', 'longitude'], 'x-error-code': 'invalid_location' },
      priority,
      state: { enum: ['new', 'active', 'resolved'] },
      event_details: { type: 'object', description: 'Checked against the event type\'s schema (400 with pointers).' },
      patrol_segments: array({ type: 'string', format: 'uuid' }, { maxItems: 50, description: 'Segment ids.', 'x-error-code': 'invalid' }),
      notes: array({ type: 'object', properties: { text: str(10000) }, required: ['text'] }, { maxItems: 100, description: 'Notes to add (items with an id are echoes, ignored).', 'x-error-code': 'invalid' }),
      ...Object.fromEntries(READ_ONLY_ECHOES.map((name) => [name, readOnly()])),
    },
    required,
  );
}

const noteBody: JSONSchema = named('EventNoteBody', object(
  { text: str(10000), event: readOnly('The event (the id in the URL); ignored.'), id: readOnly(), created_at: readOnly(), updated_at: readOnly(), updates: readOnly(), created_by: readOnly(), ordernum: readOnly() },
  ['text'],
));

const eventId = { id: { description: 'Event id (UUID).', schema: uuid } };
const noteParams = { ...eventId, noteId: { description: 'Note id (UUID).', schema: uuid } };
const eventFileParams = { ...eventId, fileId: { description: 'File id (UUID).', schema: uuid } };
const segmentId = { id: { description: 'Segment id (UUID).', schema: uuid } };
const eventCreate = named('EventCreate', eventBody(['event_type']));
const eventPatch = named('EventPatch', eventBody([]));
const bytes = { description: 'The bytes, as a download (`Content-Disposition: attachment`).', mediaType: 'application/octet-stream' };
const etagged = (json: JSONSchema) => ({ ...ok(json), headers: { ETag: 'The event\'s revision; send it in If-None-Match (GET) or If-Match (PATCH, DELETE).' } });
const ifMatchOnly = 'Optimistic concurrency: with `If-Match`, the write happens only when the tag names the event\'s current revision; otherwise 412.';
const ifMatch = `${ifMatchOnly}\n\n${BASE_REVISION_DOC}`;
const removeDoc = `${ifMatchOnly}\n\n\`Fieldops-Base-Revision: <n>\` (optional): the \`revision\` the deletion was based on (digits only, 1 to 2^53-1; anything else is 400, field \`Fieldops-Base-Revision\`, code \`invalid\`).`;
const listQuery = queryParams({
  ...pageParams,
  state: { anyOf: [{ type: 'string' }, array({ type: 'string' })], description: 'new, active, resolved (repeatable or comma-separated).' },
  event_type: { anyOf: [{ type: 'string' }, array({ type: 'string' })], description: 'Event type ids or values (repeatable).' },
  filter: str(4000, { description: 'JSON: `{date_range: {lower, upper}, event_type: [...], event_category: [...], text, priority: [...], reported_by: [...], state: [...]}` (`duration`, `sort` accepted and ignored).' }),
  updated_since: { type: 'string', format: 'date-time', description: 'Only events changed at or after this time (ISO 8601 with an offset).' },
  sort_by: str(40, { description: '[-]event_time, updated_at, created_at or serial_number (default -event_time).' }),
  bbox: str(200, { description: '`west,south,east,north` in degrees: only events located in the box (west > east crosses the antimeridian).' }),
});
const renderParam = {
  render: {
    type: 'string', enum: ['as_recorded'],
    description: '`as_recorded`: each event also carries `rendered_details`, its details presented through the type revision it was recorded against (`schema_revision`): that revision\'s form order, titles and choice names, then any stored key it does not describe. Fieldops profile.',
  },
};

export const eventSchemas = {
  segmentEvents: { summary: 'Events of a patrol segment', tags: [tag], params: segmentId, query: queryParams(pageParams), responses: { 200: ok(page(event)), ...readErrors() } },
  createSegmentEvent: { summary: 'Create an event linked to a segment', tags: [tag], params: segmentId, body: { kind: 'json', schema: eventCreate }, responses: { 201: created(event), ...writeErrors(), ...errors(409) } },
  list: { summary: 'List events (newest first)', tags: [tag], query: queryParams({ ...(listQuery.properties as Record<string, JSONSchema>), ...renderParam }), responses: { 200: ok(page(event)), ...errors(400, ...AUTH_ERRORS, 404) } },
  create: { summary: 'Create an event', tags: [tag], body: { kind: 'json', schema: eventCreate }, responses: { 201: created(event), ...writeErrors(), ...errors(409) } },
  get: { summary: 'One event', tags: [tag], params: eventId, query: queryParams(renderParam), responses: { 200: etagged(event), 304: notModified, ...readErrors() } },
  patch: { summary: 'Change an event', description: ifMatch, tags: [tag], params: eventId, body: { kind: 'json', schema: eventPatch }, responses: { 200: etagged(event), ...writeErrors(), ...errors(412) } },
  remove: { summary: 'Delete an event (needs delete_event)', description: removeDoc, tags: [tag], params: eventId, responses: { 204: noContent, ...readErrors(), ...errors(412) } },
  listNotes: { summary: 'Notes of an event', tags: [tag], params: eventId, responses: { 200: ok(array(eventNote)), ...readErrors() } },
  createNote: { summary: 'Add a note to an event', tags: [tag], params: eventId, body: { kind: 'json', schema: noteBody }, responses: { 201: created(eventNote), ...writeErrors() } },
  getNote: { summary: 'One note of an event', tags: [tag], params: noteParams, responses: { 200: ok(eventNote), ...readErrors() } },
  patchNote: { summary: 'Change a note\'s text', tags: [tag], params: noteParams, body: { kind: 'json', schema: noteBody }, responses: { 200: ok(eventNote), ...writeErrors() } },
  deleteNote: { summary: 'Remove a note', tags: [tag], params: noteParams, responses: { 204: noContent, ...readErrors() } },
  listFiles: { summary: 'Files of an event', tags: [tag], params: eventId, responses: { 200: ok(array(eventFile)), ...readErrors() } },
  upload: {
    summary: 'Attach a file to an event (multipart: `filecontent.file`, `comment`)',
    description: 'Permission and the event are checked before the bytes are read. The content type is sniffed from the bytes, never taken from the file name.',
    tags: [tag], params: eventId,
    body: { kind: 'multipart', schema: { type: 'object', properties: { 'filecontent.file': { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file.' }, comment: str(2000) }, required: ['filecontent.file'] } },
    responses: { 201: created(eventFile), ...writeErrors() },
  },
  getFile: { summary: 'An event file\'s metadata', tags: [tag], params: eventFileParams, responses: { 200: ok(eventFile), ...readErrors() } },
  deleteFile: { summary: 'Remove a file from an event (the stored bytes stay: they are content-addressed and may be shared)', tags: [tag], params: eventFileParams, responses: { 204: noContent, ...readErrors() } },
  file: { summary: 'The bytes of an event\'s file', tags: [tag], params: eventFileParams, responses: { ...storedFileResponses(), ...readErrors() } },
  ...eventMapSchemas(listQuery, event),
} satisfies Record<string, RouteSchema>;

/** A stored file's bytes as server/http/file-download.ts sends them: whole, one range, or a presigned redirect. */
function storedFileResponses() {
  return {
    200: bytes,
    206: { description: 'One byte range of the file (`Range: bytes=a-b`, `bytes=a-`, `bytes=-n`).', mediaType: 'application/octet-stream' },
    302: { description: 'With `FIELDOPS_S3_PRESIGN=true`: a redirect to a short-lived presigned URL of the object store.' },
    416: { description: 'The range is outside the file (`Content-Range: bytes */<size>`).' },
  };
}

const filesTag = 'patrols';
const fileParams = { id: { description: 'Patrol id (UUID).', schema: uuid }, fileId: { description: 'File id (UUID).', schema: uuid } };
const metadataBody: JSONSchema = named('PatrolFileMetadata', {
  type: 'object',
  properties: {
    comment: str(2000),
    ordernum: { type: ['integer', 'string', 'null'], description: 'An integer (or null / "" to clear).' },
    id: readOnly(), patrol: readOnly(), usercontent_id: readOnly(), usercontent_type: readOnly(), filename: readOnly(), file_type: readOnly(), size: readOnly(), url: readOnly(), created_at: readOnly(), updated_at: readOnly(),
  },
  additionalProperties: false,
});

export const patrolFileSchemas = {
  list: { summary: 'Files of a patrol', tags: [filesTag], params: { id: fileParams.id }, responses: { 200: ok(array(patrolFile)), ...readErrors() } },
  upload: {
    summary: 'Upload a file to a patrol (multipart: `filecontent.file`, `comment`, `ordernum`)',
    description: 'The content type is sniffed from the bytes, never taken from the file name.',
    tags: [filesTag], params: { id: fileParams.id },
    body: {
      kind: 'multipart',
      schema: { type: 'object', properties: { 'filecontent.file': { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file.' }, comment: str(2000), ordernum: str(undefined, { description: 'An integer.' }), id: str(36, { description: 'The file\'s id, a UUID the client chooses (optional); an id that exists already is 409.' }) }, required: ['filecontent.file'] },
    },
    responses: { 201: created(patrolFile), ...writeErrors(), ...errors(409, 429) },
  },
  get: { summary: 'A patrol file\'s metadata', tags: [filesTag], params: fileParams, responses: { 200: ok(patrolFile), ...readErrors() } },
  replace: { summary: 'Change a file\'s comment and ordernum', tags: [filesTag], params: fileParams, body: { kind: 'json', schema: metadataBody }, responses: { 200: ok(patrolFile), ...writeErrors() } },
  patch: { summary: 'Change a file\'s comment and ordernum', tags: [filesTag], params: fileParams, body: { kind: 'json', schema: metadataBody }, responses: { 200: ok(patrolFile), ...writeErrors() } },
  content: {
    summary: 'The bytes of a patrol file', tags: [filesTag], params: fileParams,
    responses: { ...storedFileResponses(), ...readErrors() },
  },
} satisfies Record<string, RouteSchema>;
