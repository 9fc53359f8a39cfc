import { type FieldIssue, InputError } from '../errors.js';
import { isUuid } from '../ids.js';
import { parseIsoWithOffset } from '../time-input.js';

/** Largest batch one request may carry (CONTRACT §10). */
export const MAX_BATCH = 1000;

/** An observation as the intake sees it, validated. */
export interface ObservationInput {
  /** Position in the request's array (0 for a single object). */
  index: number;
  /** JSON Pointer of the item in the body (`/3`, or `` for a single object). */
  pointer: string;
  manufacturerId: string;
  recordedAt: number;
  latitude: number;
  longitude: number;
  subjectId: string | null;
  subjectName: string | null;
  subjectSubtype: string | null;
  subjectGroups: string[];
  modelName: string | null;
  sourceType: string | null;
  additional: Record<string, unknown>;
}

/** A per-item issue of a batch: which item, and where in it (pointer from the body's root). */
export interface ItemIssue extends FieldIssue {
  index: number;
}

/** The error key under which per-item issues are reported. */
export const ITEMS_KEY = 'observations';

/**
 * The body as a list of items: one object, or an array of 1..MAX_BATCH. `pointer(i)` is the
 * item's JSON Pointer prefix (`/3` in an array, `` for a single object).
 */
export function readItems(body: unknown): { items: unknown[]; pointer: (index: number) => string } {
  if (Array.isArray(body)) {
    if (body.length === 0) throw InputError.field(ITEMS_KEY, 'empty_batch', 'The batch is empty.', ['Send one observation or an array of 1 to 1000.']);
    if (body.length > MAX_BATCH) {
      throw InputError.field(ITEMS_KEY, 'batch_too_large', `A batch holds at most ${MAX_BATCH} items; this one has ${body.length}.`, [`Split it into batches of ${MAX_BATCH} or fewer.`]);
    }
    return { items: body, pointer: (index) => `/${index}` };
  }
  if (body !== null && typeof body === 'object') return { items: [body], pointer: () => '' };
  throw InputError.field(ITEMS_KEY, 'invalid_type', 'Expected an observation object or an array of them.', ['Send application/json with an object or an array.']);
}

/** Throws one InputError listing every issue of every item (nothing is stored from such a batch). */
export function throwItemIssues(issues: ItemIssue[], total: number): void {
  if (issues.length === 0) return;
  const invalid = new Set(issues.map((issue) => issue.index)).size;
  throw new InputError(`${invalid} of ${total} item(s) are invalid; nothing was stored.`, { [ITEMS_KEY]: issues });
}

const STRING_LIMITS = { manufacturer_id: 200, subject_name: 100, subject_subtype: 50, model_name: 100, source_type: 50 } as const;
const MAX_GROUPS = 20;
/** Control characters in names are refused (PostgreSQL text cannot even hold NUL). */
export const CONTROL = /[\u0000-\u001f\u007f]/;

/** Validates one observation item; issues are appended to `issues`, null returned when any. */
export function readObservation(raw: unknown, index: number, prefix: string, issues: ItemIssue[]): ObservationInput | null {
  const before = issues.length;
  const issue = (field: string, code: string, message: string, hints: string[] = []) =>
    issues.push({ index, code, message: `Item ${index}: ${message}`, hints, pointer: `${prefix}${field ? '/' + field : ''}` });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    issue('', 'invalid_type', 'expected an object.');
    return null;
  }
  const item = raw as Record<string, unknown>;
  const text = (field: keyof typeof STRING_LIMITS, required: boolean): string | null => {
    const value = item[field];
    if (value === undefined || value === null) {
      if (required) issue(field, 'required', `${field} is required.`);
      return null;
    }
    if (typeof value !== 'string') issue(field, 'invalid_type', `${field} must be a string.`);
    else if (value.trim() === '') issue(field, 'blank', `${field} may not be blank.`);
    else if (CONTROL.test(value)) issue(field, 'invalid', `${field} may not contain control characters.`);
    else if (value.length > STRING_LIMITS[field]) issue(field, 'max_length', `${field} is longer than ${STRING_LIMITS[field]} characters.`);
    else return value;
    return null;
  };

  const manufacturerId = text('manufacturer_id', true);
  const subjectName = text('subject_name', false);
  const subjectSubtype = text('subject_subtype', false);
  const modelName = text('model_name', false);
  const sourceType = text('source_type', false);

  let recordedAt = 0;
  if (item.recorded_at === undefined || item.recorded_at === null) issue('recorded_at', 'required', 'recorded_at is required.');
  else if (typeof item.recorded_at !== 'string') issue('recorded_at', 'invalid_type', 'recorded_at must be an ISO 8601 string.');
  else {
    const millis = parseIsoWithOffset(item.recorded_at);
    if (millis === null) issue('recorded_at', 'invalid_datetime', `"${item.recorded_at.slice(0, 60)}" is not an ISO 8601 date-time with an offset.`, ['Use a form like 2026-11-20T10:00:00.000+00:00 (the offset is required).']);
    else recordedAt = millis;
  }

  const location = readLocation(item.location, (field, code, message) => issue(field, code, message, ['Send {"lat": -90..90, "lon": -180..180}.']));

  let subjectId: string | null = null;
  if (item.subject_id !== undefined && item.subject_id !== null) {
    if (typeof item.subject_id !== 'string' || !isUuid(item.subject_id)) issue('subject_id', 'invalid', 'subject_id must be a UUID.');
    else subjectId = item.subject_id.toLowerCase();
  }

  const subjectGroups: string[] = [];
  if (item.subject_groups !== undefined && item.subject_groups !== null) {
    const groups = item.subject_groups;
    if (!Array.isArray(groups)) issue('subject_groups', 'invalid_type', 'subject_groups must be an array of group names.');
    else if (groups.length > MAX_GROUPS) issue('subject_groups', 'too_many', `subject_groups holds at most ${MAX_GROUPS} names.`);
    else {
      groups.forEach((name, i) => {
        if (typeof name !== 'string' || name.trim() === '' || name.length > 100 || CONTROL.test(name)) issue(`subject_groups/${i}`, 'invalid', 'a group name is a non-blank string of at most 100 characters.');
        else if (!subjectGroups.includes(name)) subjectGroups.push(name);
      });
    }
  }

  let additional: Record<string, unknown> = {};
  if (item.additional !== undefined && item.additional !== null) {
    if (typeof item.additional !== 'object' || Array.isArray(item.additional)) issue('additional', 'invalid_type', 'additional must be an object.');
    else additional = item.additional as Record<string, unknown>;
  }

  if (issues.length > before || manufacturerId === null || location === null) return null;
  return {
    index, pointer: prefix, manufacturerId, recordedAt, latitude: location.lat, longitude: location.lon,
    subjectId, subjectName, subjectSubtype, subjectGroups, modelName, sourceType, additional,
  };
}

function readLocation(raw: unknown, issue: (field: string, code: string, message: string) => void): { lat: number; lon: number } | null {
  if (raw === undefined || raw === null) {
    issue('location', 'required', 'location is required.');
    return null;
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    issue('location', 'invalid_type', 'location must be an object {lat, lon}.');
    return null;
  }
  const { lat, lon } = raw as Record<string, unknown>;
  const check = (name: 'lat' | 'lon', value: unknown, bound: number): number | null => {
    if (value === undefined || value === null) issue(`location/${name}`, 'required', `location.${name} is required.`);
    else if (typeof value !== 'number' || !Number.isFinite(value)) issue(`location/${name}`, 'invalid_type', `location.${name} must be a number.`);
    else if (Math.abs(value) > bound) issue(`location/${name}`, 'out_of_range', `location.${name} must be between -${bound} and ${bound}.`);
    else return value;
    return null;
  };
  const latitude = check('lat', lat, 90);
  const longitude = check('lon', lon, 180);
  return latitude === null || longitude === null ? null : { lat: latitude, lon: longitude };
}
