import type { AppContext } from '../state.js';
import { AREA_RULES as SUBJECT_RULES } from './rules-subjects.js';
import { AREA_RULES as TRACK_RULES } from './rules-tracks.js';
import { AREA_RULES as EVENT_MAP_RULES } from './rules-events-map.js';
import { AREA_RULES as MESSAGE_RULES } from './rules-messages.js';
import { originalPatrol, originalSegment } from './rules-patrols.js';
import { originalEventType, originalEventTypes, originalSchemaBatch, withoutUiChoices } from './rules-event-types.js';

/**
 * How a route's response is shown in the `earthranger` profile (CONTRACT §11), by route name:
 * the route metadata of the presentation step. Handlers and services never see the profile.
 *
 * - `raw`: not wrapped (OAuth is RFC 6749 in both; health, metrics and the API description are
 *   ours; the v2 schema documents are unwrapped in the original too); `data`, when given,
 *   reshapes a 2xx JSON object body (the v2 event type schema documents).
 * - `enveloped`: the handler already answers `{data, status}` in every profile (the users API;
 *   sensors, observations and subjects, CONTRACT §10); `data`, when given, reshapes the payload
 *   under `data`.
 * - `wrap` (the default): `{data: <payload>, status: {code, message}}`, the payload optionally
 *   reshaped by `data` first; a 204 becomes 200 with `data: null`.
 */
export type EarthRangerRule =
  | { kind: 'raw'; data?: (payload: unknown) => unknown }
  | { kind: 'enveloped'; data?: (payload: unknown) => unknown }
  | { kind: 'wrap'; data?: (payload: unknown, ctx: AppContext, status: number) => unknown; status?: (status: number) => number };

const RAW: EarthRangerRule = { kind: 'raw' };
const WRAP: EarthRangerRule = { kind: 'wrap' };

/** Routes whose name starts with one of these are `raw`. */
// `sync.`: the feed's wire is one protocol (protocol/sync.ts) whatever the profile.
// `exports.`, `kml.`: files (CSV, KML), streamed as they are in every profile.
const RAW_PREFIXES = ['oauth.', 'healthz', 'readyz', 'metrics', 'openapi', 'docs', 'sync.', 'exports.', 'kml.'];

const ENVELOPED: EarthRangerRule = { kind: 'enveloped' };
/** Routes whose name starts with one of these are `enveloped`. */
const ENVELOPED_PREFIXES = ['sensors.', 'observations.', 'subjects.'];

const RULES: Record<string, EarthRangerRule> = {
  'eventtypes.schemas': { kind: 'raw', data: originalSchemaBatch },
  'eventtypes.schema': { kind: 'raw', data: withoutUiChoices },
  'patroltypes.schemas': RAW,
  'patroltypes.schema': RAW,
  'choices.json': RAW,
  // issue 28: answers that are not an event type's detail carry `{data}` in every profile
  'eventtypes.usage': ENVELOPED,
  'eventtypes.usage_many': ENVELOPED,
  'eventtypes.draft_get': ENVELOPED,
  'eventtypes.draft_put': ENVELOPED,
  'users.list': { kind: 'enveloped' },
  'users.create': { kind: 'enveloped' },
  'users.me': { kind: 'enveloped' },
  'users.profiles': { kind: 'enveloped' },
  'users.get': { kind: 'enveloped' },
  // The original answers a created v2 event type with where it is, and PATCH with nothing.
  'eventtypes.create': { kind: 'wrap', data: (payload) => ({ resource_url: `/api/v2.0/activity/eventtypes/${valueOf(payload)}` }) },
  'eventtypes.patch': { kind: 'wrap', data: () => null },
  'eventtypes.list': { kind: 'wrap', data: originalEventTypes },
  ...shaped(['eventtypes.detail', 'eventtypes.replace'], originalEventType),
  'eventtypes.updates': { kind: 'wrap', data: (payload) => mapResults(payload, revisionItem) },
  'patroltypes.updates': { kind: 'wrap', data: (payload) => mapResults(payload, revisionItem) },
  // Records carry `revision` in the fieldops profile only (issue 26 §2): the original's fields, exactly.
  ...shaped(['events.get', 'events.create', 'events.patch', 'segments.events.create'], bareEvent),
  ...shaped(['events.list', 'segments.events'], (payload) => mapResults(payload, bareEvent)),
  ...shaped(['patrols.get', 'patrols.create', 'patrols.replace', 'patrols.patch'], originalPatrol),
  'patrols.list': { kind: 'wrap', data: (payload) => mapResults(payload, originalPatrol) },
  ...shaped(['segments.get', 'segments.create', 'segments.replace', 'segments.patch'], originalSegment),
  'segments.list': { kind: 'wrap', data: (payload) => mapResults(payload, originalSegment) },
  'subjects.get': { kind: 'enveloped', data: bareRecord },
  'subjects.list': { kind: 'enveloped', data: (payload) => mapItems(payload, bareRecord) },
  subjectgroups: { kind: 'wrap', data: (payload) => mapItems(payload, (group) => ({ ...group, subjects: mapItems(group.subjects, bareRecord) })) },
  trackedby: { kind: 'wrap', data: bareTrackedBy },
  ...SUBJECT_RULES,
  ...TRACK_RULES,
  ...EVENT_MAP_RULES,
  ...MESSAGE_RULES,
};

export function earthRangerRule(routeName: string | undefined): EarthRangerRule {
  if (routeName === undefined) return WRAP;
  const rule = RULES[routeName];
  if (rule) return rule;
  if (ENVELOPED_PREFIXES.some((prefix) => routeName.startsWith(prefix))) return ENVELOPED;
  return RAW_PREFIXES.some((prefix) => routeName === prefix || routeName.startsWith(prefix)) ? RAW : WRAP;
}

/** Route names with an explicit rule (tests check each names a route of the table). */
export const RULED_ROUTES = Object.keys(RULES);

function valueOf(payload: unknown): string {
  const value = (payload as { value?: unknown } | null)?.value;
  return encodeURIComponent(String(value ?? ''));
}

function shaped(routes: string[], data: (payload: unknown) => unknown): Record<string, EarthRangerRule> {
  return Object.fromEntries(routes.map((route) => [route, { kind: 'wrap', data }]));
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A record without its top-level `revision` (an event, a subject). Only that key: `revision`
 * inside `event_details` or a subject's `additional` is the tenant's data.
 */
function bareRecord(record: unknown): unknown {
  if (!isRecord(record) || !Object.hasOwn(record, 'revision')) return record;
  const { revision: _revision, ...rest } = record;
  return rest;
}

/**
 * An event as the original shows it: without `revision`, `schema_revision` and `rendered_details`
 * (issue 28 §4: fieldops-profile members). `event_details` passes as stored, every key, whatever the
 * type's current schema says: the original's clients get the fields a later revision dropped.
 */
function bareEvent(record: unknown): unknown {
  if (!isRecord(record)) return record;
  const { revision: _revision, schema_revision: _schemaRevision, rendered_details: _rendered, ...rest } = record;
  return rest;
}

/** The tracked-by schema's leaders (`enum`, `enum_ext[].value`) without their revisions. */
function bareTrackedBy(payload: unknown): unknown {
  if (!isRecord(payload) || !isRecord(payload.properties) || !isRecord(payload.properties.leader)) return payload;
  const leader = payload.properties.leader;
  const bare = {
    ...leader,
    ...(Array.isArray(leader.enum) ? { enum: leader.enum.map(bareRecord) } : {}),
    ...(Array.isArray(leader.enum_ext) ? { enum_ext: mapItems(leader.enum_ext, (item) => ({ ...item, value: bareRecord(item.value) })) } : {}),
  };
  return { ...payload, properties: { ...payload.properties, leader: bare } };
}

function mapItems(items: unknown, item: (entry: Record<string, unknown>) => unknown): unknown {
  return Array.isArray(items) ? items.map((entry) => (isRecord(entry) ? item(entry) : entry)) : items;
}

function mapResults(payload: unknown, item: (entry: Record<string, unknown>) => unknown): unknown {
  const page = payload as { results?: unknown } | null;
  if (!page || !Array.isArray(page.results)) return payload;
  return { ...page, results: page.results.map((entry) => item(entry as Record<string, unknown>)) };
}

const ACTIONS: Record<string, string> = { created: 'added', updated: 'updated', deleted: 'deleted' };

/** A revision history item as the original shows it: `added|updated|deleted`, the user as an account. */
function revisionItem(entry: Record<string, unknown>): unknown {
  const user = entry.user as { id: string; username: string; first_name?: string; last_name?: string } | null;
  const { changes: _changes, ...rest } = entry;
  return {
    ...rest,
    action: Object.hasOwn(ACTIONS, String(entry.action)) ? ACTIONS[String(entry.action)] : entry.action,
    updated_fields: Array.isArray(entry.updated_fields) ? entry.updated_fields : [],
    user: user ? { id: user.id, username: user.username, first_name: user.first_name ?? '', last_name: user.last_name ?? '', content_type: 'accounts.user' } : null,
  };
}
