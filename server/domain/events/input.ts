import { BodyReader } from '../catalog/fields.js';
import { PRIORITIES } from '../catalog/input.js';
import { isUuid } from '../ids.js';
import { parseIsoWithOffset } from '../time-input.js';
import { EVENT_STATES, type EventState } from './model.js';

export { EVENT_STATES };

/** Absent fields are undefined (unchanged on PATCH); `location: null` clears it. */
export interface EventInput {
  id?: string;
  eventType?: string;
  title?: string;
  time?: number;
  location?: { latitude: number; longitude: number } | null;
  priority?: number;
  state?: EventState;
  eventDetails?: Record<string, unknown>;
  patrolSegments?: string[];
  /** New notes (items without an id; items with one are echoes of existing notes, ignored). */
  notes?: string[];
}

export const MAX_NOTE_CHARS = 10_000;

/** The longest top-level `event_details` key accepted. */
export const MAX_DETAIL_KEY_LENGTH = 200;

const WRITABLE = ['id', 'event_type', 'title', 'time', 'location', 'priority', 'state', 'event_details', 'patrol_segments', 'notes'];
/**
 * Read-only fields the original's clients send back with what they read (CONTRACT §11):
 * accepted and ignored, in both profiles. Anything else unknown is 400.
 */
export const EVENT_READ_ONLY = [
  'serial_number', 'files', 'created_at', 'updated_at', 'url', 'reported_by', 'updates', 'is_collection', 'event_category',
  'icon_id', 'priority_label', 'sort_at', 'image_url', 'geojson', 'geometry', 'is_contained_in', 'related_subjects', 'patrols',
  'provenance', 'message', 'comment', 'attributes', 'end_time', 'is_linked_to', 'contains', 'event_time',
  // Ours (issue 26 §2), served in the fieldops profile; the base is Fieldops-Base-Revision, never this.
  'revision',
  // Ours (issue 28 §4), fieldops profile: the recorded type revision is the server's to set.
  'schema_revision', 'rendered_details',
];

/** `{id, event_type, title, time, location {latitude, longitude}, priority, state, event_details, patrol_segments, notes}` (CONTRACT §5b, §11). */
export function readEventBody(body: unknown, mode: 'create' | 'patch'): EventInput {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(WRITABLE, EVENT_READ_ONLY);
  const input: EventInput = {
    eventType: reader.string('event_type', { max: 50, required: mode === 'create' }),
    title: reader.body.title === null ? undefined : reader.string('title', { max: 255 }),
    priority: reader.oneOf('priority', PRIORITIES),
    state: reader.oneOf('state', EVENT_STATES),
  };
  if (reader.has('id')) {
    const id = reader.body.id;
    if (typeof id === 'string' && isUuid(id)) input.id = id.toLowerCase();
    else reader.add('id', { code: 'invalid', message: 'Expected a UUID.', hints: ['Leave id out to have one assigned.'] });
  }
  if (reader.has('time')) {
    const time = typeof reader.body.time === 'string' ? parseIsoWithOffset(reader.body.time) : null;
    if (time === null) reader.add('time', { code: 'invalid_datetime', message: 'time is an ISO 8601 date-time with an offset.', hints: ['For example 2026-11-20T10:00:00+00:00.'] });
    else input.time = time;
  }
  if (reader.has('location')) {
    const location = reader.body.location as Record<string, unknown> | null;
    const lat = location?.latitude;
    const lon = location?.longitude;
    if (location === null) input.location = null;
    else if (typeof lat === 'number' && typeof lon === 'number' && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180) input.location = { latitude: lat, longitude: lon };
    else reader.add('location', { code: 'invalid_location', message: 'location is {latitude: -90..90, longitude: -180..180} or null.', hints: ['For example {"latitude": -1.29, "longitude": 36.82}.'] });
  }
  if (reader.has('event_details')) {
    const details = reader.body.event_details;
    if (details && typeof details === 'object' && !Array.isArray(details)) {
      // Issue 28: every top-level key is counted in the usage summaries (an indexed column); a
      // form field's name is short, so a key beyond this is a mistake, not data.
      // Control characters (NUL above all: PostgreSQL text cannot hold it) name no form field either.
      const bad = Object.keys(details).find((name) => name.length > MAX_DETAIL_KEY_LENGTH || /[\u0000-\u001f]/.test(name));
      if (bad === undefined) input.eventDetails = details as Record<string, unknown>;
      else if (bad.length > MAX_DETAIL_KEY_LENGTH) reader.add('event_details', { code: 'invalid', message: `event_details keys are at most ${MAX_DETAIL_KEY_LENGTH} characters (one has ${bad.length}).`, hints: ['Use the field names of the event type\'s schema.'] });
      else reader.add('event_details', { code: 'invalid', message: 'event_details keys hold no control characters.', hints: ['Use the field names of the event type\'s schema.'] });
    } else reader.add('event_details', { code: 'invalid_type', message: 'event_details is a JSON object.', hints: ['Send {} when there is nothing to record.'] });
  }
  if (reader.has('patrol_segments')) {
    const segments = reader.body.patrol_segments;
    if (Array.isArray(segments) && segments.length <= 50 && segments.every((id) => typeof id === 'string' && isUuid(id))) input.patrolSegments = segments.map((id: string) => id.toLowerCase());
    else reader.add('patrol_segments', { code: 'invalid', message: 'patrol_segments is a list of segment ids.', hints: ['For example ["<uuid>"].'] });
  }
  if (reader.has('notes')) {
    const notes = reader.body.notes;
    const isNote = (note: unknown): note is { text: string; id?: unknown } =>
      !!note && typeof note === 'object' && typeof (note as { text?: unknown }).text === 'string' && (note as { text: string }).text.length <= MAX_NOTE_CHARS;
    if (Array.isArray(notes) && notes.length <= 100 && notes.every(isNote)) input.notes = notes.filter((note) => note.id === undefined || note.id === null).map((note) => note.text).filter((text) => text.trim() !== '');
    else reader.add('notes', { code: 'invalid', message: `notes is a list of {text} (at most 100, each at most ${MAX_NOTE_CHARS} characters).`, hints: ['For example [{"text": "Seen near the gate."}].'] });
  }
  reader.finish('The event is not valid.');
  return input;
}

/** A note's body: `{text}` (the original's clients also send `event`, the id in the URL; ignored). */
export function readNoteBody(body: unknown): { text: string } {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['text'], ['event', 'id', 'created_at', 'updated_at', 'updates', 'created_by', 'ordernum']);
  const text = reader.string('text', { max: MAX_NOTE_CHARS, required: true });
  reader.finish('The note is not valid.');
  return { text: text! };
}
