import { BodyReader } from '../catalog/fields.js';
import { PRIORITIES } from '../catalog/input.js';
import type { FieldIssue } from '../errors.js';
import { isUuid } from '../ids.js';
import { parseIsoWithOffset } from '../time-input.js';
import { type LatLon, type LeaderType, PATROL_STATES, type PatrolState } from './model.js';

/** Absent (undefined) leaves a field as it is; null clears it. */
export interface SegmentInput {
  id?: string;
  patrol?: string;
  patrolType?: string | null;
  leader?: { type: LeaderType; id: string } | null;
  scheduledStart?: number | null;
  scheduledEnd?: number | null;
  startTime?: number | null;
  endTime?: number | null;
  startLocation?: LatLon | null;
  endLocation?: LatLon | null;
}

export interface PatrolInput {
  id?: string;
  title?: string | null;
  objective?: string | null;
  priority?: number;
  state?: PatrolState;
  segments?: SegmentInput[];
  notes?: Array<{ id?: string; text: string }>;
}

const SEGMENT_FIELDS = ['id', 'patrol', 'patrol_type', 'leader', 'scheduled_start', 'scheduled_end', 'time_range', 'start_location', 'end_location'];
// Served fields the original clients send back (CONTRACT §11): accepted and ignored. On a nested
// segment `patrol` is one of them (it can only be the patrol being written).
// `revision` (issue 26 §2) is served in the fieldops profile and echoed back; the base is Fieldops-Base-Revision.
// `priority`: the web app's "new patrol" sends the type's default on its segment; ignored as the original does.
const SEGMENT_READ_ONLY = ['image_url', 'icon_id', 'events', 'updates', 'created_at', 'updated_at', 'revision', 'priority'];
const MAX_SEGMENTS = 100;
const MAX_TEXT = 10_000;

/** Reads a patrol body (POST, PUT, PATCH: every field optional). Errors keyed by field, nested as `patrol_segments[i].field`. */
export function readPatrolBody(body: unknown): PatrolInput {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['id', 'title', 'objective', 'priority', 'state', 'patrol_segments', 'notes'], ['serial_number', 'updates', 'files', 'created_at', 'updated_at', 'revision', 'icon_id', 'is_collection']);
  const input: PatrolInput = {
    id: readId(reader, 'id'),
    title: nullableText(reader, 'title', 255),
    objective: nullableText(reader, 'objective', MAX_TEXT),
    priority: reader.oneOf('priority', PRIORITIES),
    state: reader.oneOf('state', PATROL_STATES),
  };
  if (reader.has('patrol_segments')) {
    const list = reader.body.patrol_segments;
    if (!Array.isArray(list) || list.length > MAX_SEGMENTS) {
      reader.add('patrol_segments', { code: 'invalid', message: `patrol_segments must be an array of at most ${MAX_SEGMENTS} segments.`, hints: ['Send [] or a list of segment objects.'] });
    } else {
      input.segments = list.map((segment, index) => readSegmentInto(reader, segment, `patrol_segments[${index}]`, 'nested'));
    }
  }
  if (reader.has('notes')) {
    const notes = reader.body.notes;
    if (!Array.isArray(notes) || notes.length > 100) reader.add('notes', { code: 'invalid', message: 'notes must be an array of at most 100 {text} objects.', hints: ['Send [{"text": "..."}].'] });
    else input.notes = notes.map((note, index) => readNoteInto(reader, note, `notes[${index}]`));
  }
  reader.finish('The patrol is not valid.');
  return input;
}

/** Reads a standalone segment body: `patrol` is required on create. */
export function readSegmentBody(body: unknown, mode: 'create' | 'update'): SegmentInput {
  const reader = BodyReader.of(body);
  const segment = readSegmentInto(reader, body, '', 'standalone');
  if (mode === 'create' && segment.patrol === undefined) reader.add('patrol', { code: 'required', message: 'patrol is required.', hints: ['Send the id of the patrol this segment belongs to.'] });
  reader.finish('The patrol segment is not valid.');
  return segment;
}

export function readNoteBody(body: unknown, required: boolean): { text?: string } {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['text'], ['id', 'created_at', 'updated_at', 'created_by', 'patrol']);
  const text = reader.string('text', { max: MAX_TEXT, required });
  reader.finish('The note is not valid.');
  return text === undefined ? {} : { text };
}

/** A new note: its text, and the id the client chose (offline records carry theirs). */
export function readNewNoteBody(body: unknown): { text: string; id?: string } {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['text', 'id'], ['created_at', 'updated_at', 'created_by', 'patrol']);
  const text = reader.string('text', { max: MAX_TEXT, required: true });
  const id = readId(reader, 'id');
  reader.finish('The note is not valid.');
  return { text: text!, ...(id ? { id } : {}) };
}

function readSegmentInto(reader: BodyReader, value: unknown, prefix: string, mode: 'nested' | 'standalone'): SegmentInput {
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    reader.add(prefix || 'body', { code: 'invalid_type', message: 'A segment is a JSON object.', hints: ['See the API documentation for the segment fields.'] });
    return {};
  }
  const body = value as Record<string, unknown>;
  const has = (field: string) => Object.prototype.hasOwnProperty.call(body, field);
  for (const key of Object.keys(body)) {
    if (!SEGMENT_FIELDS.includes(key) && !SEGMENT_READ_ONLY.includes(key)) reader.add(at(key), { code: 'unknown_field', message: `Unknown field "${key}".`, hints: [`Segment fields: ${SEGMENT_FIELDS.join(', ')}.`] });
  }
  const segment: SegmentInput = {};
  if (has('id')) segment.id = uuidAt(reader, body.id, at('id'));
  if (mode === 'standalone' && has('patrol')) segment.patrol = uuidAt(reader, body.patrol, at('patrol'));
  if (has('patrol_type')) {
    const type = body.patrol_type;
    if (type === null || (typeof type === 'string' && type.length <= 100)) segment.patrolType = type as string | null;
    else reader.add(at('patrol_type'), { code: 'invalid_type', message: 'patrol_type is the value of a patrol type, or null.', hints: ['For example "routine_patrol".'] });
  }
  if (has('leader')) segment.leader = leaderAt(reader, body.leader, at('leader'));
  if (has('scheduled_start')) segment.scheduledStart = dateAt(reader, body.scheduled_start, at('scheduled_start'));
  if (has('scheduled_end')) segment.scheduledEnd = dateAt(reader, body.scheduled_end, at('scheduled_end'));
  if (has('time_range')) {
    const range = body.time_range;
    if (range === null) {
      segment.startTime = null;
      segment.endTime = null;
    } else if (typeof range !== 'object' || Array.isArray(range)) {
      reader.add(at('time_range'), { code: 'invalid_type', message: 'time_range is {start_time, end_time}.', hints: ['Either may be null.'] });
    } else {
      const r = range as Record<string, unknown>;
      if ('start_time' in r) segment.startTime = dateAt(reader, r.start_time, at('time_range.start_time'));
      if ('end_time' in r) segment.endTime = dateAt(reader, r.end_time, at('time_range.end_time'));
    }
  }
  if (has('start_location')) segment.startLocation = locationAt(reader, body.start_location, at('start_location'));
  if (has('end_location')) segment.endLocation = locationAt(reader, body.end_location, at('end_location'));
  return segment;
}

function readNoteInto(reader: BodyReader, value: unknown, prefix: string): { id?: string; text: string } {
  const note = (value ?? {}) as Record<string, unknown>;
  if (typeof note.text !== 'string' || note.text.length === 0 || note.text.length > MAX_TEXT) {
    reader.add(`${prefix}.text`, { code: 'invalid', message: `A note needs text of 1 to ${MAX_TEXT} characters.`, hints: ['Send {"text": "..."}.'] });
  }
  return { ...(note.id !== undefined ? { id: uuidAt(reader, note.id, `${prefix}.id`) } : {}), text: String(note.text ?? '') };
}

function readId(reader: BodyReader, field: string): string | undefined {
  return reader.has(field) ? uuidAt(reader, reader.body[field], field) : undefined;
}

function uuidAt(reader: BodyReader, value: unknown, field: string): string | undefined {
  if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
  reader.add(field, { code: 'invalid', message: 'Expected a UUID.', hints: ['For example 3f1c2a8e-2b1d-4c55-9a0e-7d2c1e4b5a60.'] });
  return undefined;
}

function nullableText(reader: BodyReader, field: string, max: number): string | null | undefined {
  if (reader.has(field) && reader.body[field] === null) return null;
  return reader.string(field, { max });
}

function dateAt(reader: BodyReader, value: unknown, field: string): number | null | undefined {
  if (value === null) return null;
  const millis = typeof value === 'string' ? parseIsoWithOffset(value) : null;
  if (millis === null) reader.add(field, invalid('invalid_datetime', 'Expected an ISO 8601 date-time with an offset, or null.', 'For example 2026-11-20T10:00:00.000+00:00.'));
  return millis ?? undefined;
}

function locationAt(reader: BodyReader, value: unknown, field: string): LatLon | null | undefined {
  if (value === null) return null;
  const location = value as Record<string, unknown> | undefined;
  const lat = location?.latitude;
  const lon = location?.longitude;
  if (typeof lat !== 'number' || typeof lon !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180) {
    reader.add(field, invalid('invalid_location', 'A location is {latitude: -90..90, longitude: -180..180}.', 'For example {"latitude": -1.29, "longitude": 36.82}.'));
    return undefined;
  }
  return { latitude: lat, longitude: lon };
}

function leaderAt(reader: BodyReader, value: unknown, field: string): { type: LeaderType; id: string } | null | undefined {
  if (value === null || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0)) return null;
  const leader = value as Record<string, unknown>;
  const type = leader?.content_type;
  if ((type !== 'observations.subject' && type !== 'accounts.user') || typeof leader.id !== 'string' || !isUuid(leader.id)) {
    reader.add(field, invalid('invalid_leader', 'leader is {content_type: "observations.subject" | "accounts.user", id: <uuid>}, {} or null.', 'Pick a leader from the tracked-by schema.'));
    return undefined;
  }
  return { type, id: leader.id.toLowerCase() };
}

const invalid = (code: string, message: string, hint: string): FieldIssue => ({ code, message, hints: [hint] });
