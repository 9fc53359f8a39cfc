import { PRIORITIES } from '../catalog/input.js';
import { type FieldIssue, InputError } from '../errors.js';
import { isUuid } from '../ids.js';
import { parseIsoWithOffset } from '../time-input.js';
import { EVENT_STATES, NO_FILTER, type BoundingBox, type EventListFilter, type EventState } from './model.js';
import type { Repositories } from '../ports.js';

/** The list's query as sent (repeatable parameters as lists). */
export interface EventListQuery {
  state: string[];
  eventType: string[];
  filter?: string;
  updatedSince?: string;
  sortBy?: string;
  /** `west,south,east,north` in degrees (the web app's map box). */
  bbox?: string;
}

/**
 * Filter keys the original's clients send. `event_category` names categories (their types are
 * matched); `duration` and `sort` (the web app's) are accepted and ignored.
 */
const FILTER_KEYS = ['date_range', 'event_type', 'event_category', 'text', 'priority', 'reported_by', 'state', 'duration', 'sort'];
const SORTS = { event_time: 'time', time: 'time', updated_at: 'updated_at', sort_at: 'updated_at', created_at: 'created_at', serial_number: 'serial_number' } as const;

/** What the service resolves afterwards: type ids and category values to type values. */
export interface ReadFilter {
  filter: EventListFilter;
  /** Type ids or values, as sent; null for no type filter. */
  eventTypes: string[] | null;
  categories: string[] | null;
}

/**
 * `state` (repeatable or comma-separated, `new|active|resolved`), `event_type` (repeatable),
 * `filter` (JSON: `date_range {lower, upper}`, `event_type`, `event_category`, `text`, `priority`,
 * `reported_by`, `state`), `updated_since` (ISO 8601), `sort_by` (`[-]event_time|updated_at|
 * created_at|serial_number`). Empty lists mean no filter. Anything malformed is 400.
 */
export function readEventListQuery(query: EventListQuery): ReadFilter {
  const errors: Record<string, FieldIssue[]> = {};
  const fail = (field: string, message: string, hint: string) => (errors[field] ??= []).push({ code: 'invalid', message, hints: [hint] });
  const filter: EventListFilter = { ...NO_FILTER };
  let eventTypes: string[] | null = null;
  let categories: string[] | null = null;
  const states = query.state.flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
  const stringList = (key: string, value: unknown, max = 100): string[] | null => {
    if (value === undefined || value === null) return null;
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || list.length > 500 || !list.every((item) => typeof item === 'string' && item.length <= max)) {
      fail('filter', `${key} must be a list of strings.`, `For example {"${key}": ["..."]}.`);
      return null;
    }
    return list.length ? (list as string[]) : null;
  };
  if (query.filter !== undefined && query.filter !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(query.filter);
    } catch {
      throw InputError.field('filter', 'parse_error', 'filter is not valid JSON.', ['Send a URL-encoded JSON object, e.g. {"text": "fence"}.']);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw InputError.field('filter', 'invalid', 'filter must be a JSON object.', ['For example {"text": "fence"}.']);
    const sent = parsed as Record<string, unknown>;
    for (const key of Object.keys(sent)) if (!FILTER_KEYS.includes(key)) fail('filter', `Unknown filter key "${key}".`, `Known keys: ${FILTER_KEYS.join(', ')}.`);
    const range = sent.date_range;
    if (range !== undefined && range !== null) {
      if (typeof range !== 'object' || Array.isArray(range)) fail('filter', 'date_range must be {lower, upper}.', 'Either bound may be left out.');
      else {
        const bound = (name: 'lower' | 'upper') => {
          const raw = (range as Record<string, unknown>)[name];
          if (raw === undefined || raw === null || raw === '') return null;
          const millis = typeof raw === 'string' ? parseIsoWithOffset(raw) : null;
          if (millis === null) fail('filter', `date_range.${name} is not an ISO 8601 date-time with an offset.`, 'For example 2026-11-20T10:00:00+00:00.');
          return millis;
        };
        filter.dateRange = { lower: bound('lower'), upper: bound('upper') };
        if (filter.dateRange.lower !== null && filter.dateRange.upper !== null && filter.dateRange.lower > filter.dateRange.upper) fail('filter', 'date_range.lower is after date_range.upper.', 'Swap the bounds.');
      }
    }
    if (sent.text !== undefined && sent.text !== null) {
      if (typeof sent.text !== 'string' || sent.text.length > 200) fail('filter', 'text must be a string of at most 200 characters.', 'For example {"text": "fence"}.');
      else if (sent.text.trim()) filter.text = sent.text.trim();
    }
    eventTypes = stringList('event_type', sent.event_type);
    categories = stringList('event_category', sent.event_category);
    const reporters = stringList('reported_by', sent.reported_by);
    if (reporters) {
      if (reporters.every(isUuid)) filter.reportedBy = reporters.map((id) => id.toLowerCase());
      else fail('filter', 'reported_by must be a list of user ids.', 'For example {"reported_by": ["<uuid>"]}.');
    }
    const priority = sent.priority;
    if (priority !== undefined && priority !== null) {
      const list = Array.isArray(priority) ? priority : [priority];
      if (list.every((value) => (PRIORITIES as readonly unknown[]).includes(value))) filter.priorities = list.length ? (list as number[]) : null;
      else fail('filter', 'priority must be a list of 0, 100, 200, 300.', 'For example {"priority": [300]}.');
    }
    states.push(...(stringList('state', sent.state) ?? []));
  }
  if (states.length > 0) {
    const unknown = states.filter((state) => !EVENT_STATES.includes(state as EventState));
    if (unknown.length) fail('state', `Unknown state ${unknown.map((s) => `"${s.slice(0, 40)}"`).join(', ')}.`, `Use ${EVENT_STATES.join(', ')}.`);
    else filter.states = [...new Set(states)] as EventState[];
  }
  const typesParam = query.eventType.filter(Boolean);
  if (typesParam.length) eventTypes = [...(eventTypes ?? []), ...typesParam];
  if (query.updatedSince) {
    const since = parseIsoWithOffset(query.updatedSince);
    if (since === null) fail('updated_since', 'updated_since is not an ISO 8601 date-time with an offset.', 'For example 2026-11-20T10:00:00+00:00.');
    else filter.updatedSince = since;
  }
  if (query.bbox !== undefined && query.bbox !== '') {
    const box = readBbox(query.bbox);
    if (box) filter.bbox = box;
    else fail('bbox', 'bbox is west,south,east,north in degrees (longitudes -180..180, latitudes -90..90, south <= north).', 'For example bbox=36.7,-1.4,36.9,-1.2.');
  }
  if (query.sortBy) {
    const descending = query.sortBy.startsWith('-');
    const name = query.sortBy.replace(/^-/, '');
    // Own entries only: `constructor`, `__proto__` or `toString` must not reach Object.prototype.
    const column = Object.hasOwn(SORTS, name) ? SORTS[name as keyof typeof SORTS] : undefined;
    if (!column) fail('sort_by', `Unknown sort "${query.sortBy.slice(0, 40)}".`, `Use ${Object.keys(SORTS).join(', ')}, with "-" for newest first.`);
    else filter.sort = { column, descending };
  }
  if (Object.keys(errors).length > 0) throw new InputError('Invalid event list query.', errors);
  return { filter, eventTypes, categories };
}

/** `west,south,east,north` (decimal degrees); null when malformed or out of range. */
export function readBbox(text: string): BoundingBox | null {
  const parts = text.split(',');
  if (parts.length !== 4 || text.length > 200) return null;
  const numbers = parts.map((part) => (/^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(part) ? Number(part) : NaN));
  if (!numbers.every(Number.isFinite)) return null;
  const [west, south, east, north] = numbers as [number, number, number, number];
  const lon = (value: number) => value >= -180 && value <= 180;
  const lat = (value: number) => value >= -90 && value <= 90;
  if (!lon(west) || !lon(east) || !lat(south) || !lat(north) || south > north) return null;
  return { west, south, east, north };
}

/**
 * The query read, then type ids and values and category values resolved to type values; null
 * when nothing can match. The tenant's types are read once (two queries), whatever the keys sent.
 */
export async function resolveEventFilter(repos: Repositories, tenantId: string, query: EventListQuery): Promise<EventListFilter | null> {
  const { filter, eventTypes, categories } = readEventListQuery(query);
  if (!eventTypes && !categories) return filter;
  const types = [
    ...(await repos.eventTypes.list(tenantId, { includeInactive: true, updatedSince: null })).map((type) => ({ id: type.id, value: type.value, category: type.category })),
    ...(await repos.eventTypesV1.list(tenantId)).map((type) => ({ id: type.id, value: type.value, category: type.category })),
  ];
  // Ids compare without case (UUIDs), values exactly.
  const keys = eventTypes ? new Set(eventTypes.map((key) => (isUuid(key) ? key.toLowerCase() : key))) : null;
  const wanted = categories ? new Set(categories) : null;
  const values = new Set(types
    .filter((type) => !keys || keys.has(type.id.toLowerCase()) || keys.has(type.value))
    .filter((type) => !wanted || wanted.has(type.category))
    .map((type) => type.value));
  return values.size === 0 ? null : { ...filter, eventTypes: [...values] };
}
