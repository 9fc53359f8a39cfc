import {
  AUTH_ERRORS, array, latLon, created, dateTime, errors, nullable, object, ok, page, pageParams, priority, queryParams, readErrors, readOnly, str, uuid, writeErrors,
} from './common.js';
import { patrolFile } from './patrols.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/** Events and segment events (CONTRACT §5b), and patrol files (CONTRACT §6). */

const tag = 'events';

const eventFile = object({ id: uuid, filename: str(), file_type: str(), size: { type: 'integer' }, url: { type: 'string', format: 'uri' }, created_at: dateTime });

const event: JSONSchema = named('Event', object({
  id: uuid,
  event_type: str(undefined, { description: 'The v2 event type\'s value.' }),
  title: nullable(str()),
  time: dateTime,
  location: nullable(latLon),
  priority,
  state: { enum: ['new', 'active', 'resolved'] },
  event_details: { type: 'object', description: 'Validated against the event type\'s v2 schema, choices resolved.' },
  patrol_segments: array(uuid),
  files: array(eventFile),
  created_at: dateTime,
  updated_at: dateTime,
}));

function eventBody(required: string[]): JSONSchema {
  return object(
    {
      id: { type: 'string', format: 'uuid', description: 'Client-supplied id.', 'x-error-code': 'invalid' },
      event_type: str(50),
      title: str(255),
      time: { type: 'string', format: 'date-time', 'x-error-code': 'invalid_datetime' },
      location: { type: ['object', 'null'], properties: (latLon.properties as object), required: ['latitude', 'longitude'], 'x-error-code': 'invalid_location' },
      priority,
      state: { enum: ['new', 'active', 'resolved'] },
      event_details: { type: 'object', description: 'Checked against the event type\'s schema (400 with pointers).' },
      patrol_segments: array({ type: 'string', format: 'uuid' }, { maxItems: 50, description: 'Segment ids.', 'x-error-code': 'invalid' }),
      serial_number: readOnly(), files: readOnly(), created_at: readOnly(), updated_at: readOnly(), url: readOnly(),
    },
    required,
  );
}

const eventId = { id: { description: 'Event id (UUID).', schema: uuid } };
const segmentId = { id: { description: 'Segment id (UUID).', schema: uuid } };
const eventCreate = named('EventCreate', eventBody(['event_type']));
const eventPatch = named('EventPatch', eventBody([]));
const bytes = { description: 'The bytes, as a download (`Content-Disposition: attachment`).', mediaType: 'application/octet-stream' };

export const eventSchemas = {
  segmentEvents: { summary: 'Events of a patrol segment', tags: [tag], params: segmentId, query: queryParams(pageParams), responses: { 200: ok(page(event)), ...readErrors() } },
  createSegmentEvent: { summary: 'Create an event linked to a segment', tags: [tag], params: segmentId, body: { kind: 'json', schema: eventCreate }, responses: { 201: created(event), ...writeErrors(), ...errors(409) } },
  list: { summary: 'List events', tags: [tag], query: queryParams(pageParams), responses: { 200: ok(page(event)), ...errors(400, ...AUTH_ERRORS, 404) } },
  create: { summary: 'Create an event', tags: [tag], body: { kind: 'json', schema: eventCreate }, responses: { 201: created(event), ...writeErrors(), ...errors(409) } },
  get: { summary: 'One event', tags: [tag], params: eventId, responses: { 200: ok(event), ...readErrors() } },
  patch: { summary: 'Change an event', tags: [tag], params: eventId, body: { kind: 'json', schema: eventPatch }, responses: { 200: ok(event), ...writeErrors() } },
  file: { summary: 'The bytes of an event\'s file', tags: [tag], params: { ...eventId, fileId: { description: 'File id.', schema: uuid } }, responses: { 200: bytes, ...readErrors() } },
} satisfies Record<string, RouteSchema>;

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
      schema: { type: 'object', properties: { 'filecontent.file': { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file.' }, comment: str(2000), ordernum: str(undefined, { description: 'An integer.' }) }, required: ['filecontent.file'] },
    },
    responses: { 201: created(patrolFile), ...writeErrors() },
  },
  get: { summary: 'A patrol file\'s metadata', tags: [filesTag], params: fileParams, responses: { 200: ok(patrolFile), ...readErrors() } },
  replace: { summary: 'Change a file\'s comment and ordernum', tags: [filesTag], params: fileParams, body: { kind: 'json', schema: metadataBody }, responses: { 200: ok(patrolFile), ...writeErrors() } },
  patch: { summary: 'Change a file\'s comment and ordernum', tags: [filesTag], params: fileParams, body: { kind: 'json', schema: metadataBody }, responses: { 200: ok(patrolFile), ...writeErrors() } },
  content: {
    summary: 'The bytes of a patrol file', tags: [filesTag], params: fileParams,
    responses: {
      200: bytes,
      206: { description: 'One byte range of the file (`Range: bytes=a-b`).', mediaType: 'application/octet-stream' },
      302: { description: 'With `FIELDOPS_S3_PRESIGN=true`: a redirect to a short-lived presigned URL of the object store.' },
      416: { description: 'The range is outside the file (`Content-Range: bytes */<size>`).' },
      ...readErrors(),
    },
  },
} satisfies Record<string, RouteSchema>;
