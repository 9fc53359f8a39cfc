import { AUTH_ERRORS, array, dateTime, errors, nullable, object, ok, queryBoolean, queryDateTime, queryInteger, queryParams, str, uuid } from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

/**
 * Tracks, last positions, the KML feed and the tracking exports (issue 27). Tracks and
 * positions are JSON (wrapped in `{data, status}` in the earthranger profile); KML and the
 * exports are files, streamed as they are in both profiles.
 */

const tag = 'tracks';
const coordinates = array({ type: 'number' }, { minItems: 2, maxItems: 3 });

const featureProperties: Record<string, JSONSchema> = {
  title: str(),
  subject_type: str(),
  subject_subtype: str(),
  id: uuid,
  stroke: str(),
  'stroke-opacity': { type: 'number' },
  'stroke-width': { type: 'number' },
  image: { type: 'string', format: 'uri', description: 'The subtype\'s icon under /static/sprite-src/.' },
  last_voice_call_start_at: nullable(str()),
  location_requested_at: nullable(str()),
  radio_state_at: nullable(dateTime),
  radio_state: str(undefined, { description: 'The radio\'s state (`na` without one).' }),
};

const track = named('SubjectTrack', object({
  type: { const: 'FeatureCollection' },
  features: array(object({
    type: { const: 'Feature' },
    geometry: nullable(object({ type: { const: 'LineString' }, coordinates: array(coordinates) })),
    properties: object({
      ...featureProperties,
      coordinateProperties: object({ times: array(dateTime, { description: 'One per point, newest first.' }) }),
      truncated: { type: 'boolean', description: 'fieldops profile only: more points matched than the limit (100,000); the newest are served.' },
    }, [...Object.keys(featureProperties), 'coordinateProperties']),
  }), { minItems: 1, maxItems: 1 }),
}, ['type', 'features'], {
  description: 'One LineString feature: the subject\'s fixes through its assignments (each source\'s fixes within its assigned range), newest first; `geometry` is null without any.',
}));

const positions = named('SubjectPositions', object({
  type: { const: 'FeatureCollection' },
  features: array(object({
    type: { const: 'Feature' },
    geometry: object({ type: { const: 'Point' }, coordinates }),
    properties: object({ ...featureProperties, coordinateProperties: object({ time: dateTime }), DateTime: dateTime }),
  })),
}));

const range = {
  since: queryDateTime('Fixes recorded at or after (default: 16 days ago, `status.show_track_days`).'),
  until: queryDateTime('Fixes recorded at or before (default: no end).'),
};
const subjectId = { id: { description: 'Subject id (UUID).', schema: uuid } };
const fileErrors = () => errors(400, ...AUTH_ERRORS, 404);
const file = (description: string, mediaType: string) => ({ description: `${description} A download (\`Content-Disposition: attachment\`, \`X-DAS-Download-Filename\`), streamed.`, mediaType });

export const trackSchemas = {
  subjectTrack: {
    summary: 'A subject\'s track (needs view_observation)',
    description: 'At most 100,000 points: beyond that the newest 100,000 of the range are served (`truncated: true` in the fieldops profile). Read through the observations\' (source, time) index, one range read per assignment.',
    tags: [tag],
    params: subjectId,
    query: queryParams(range),
    responses: { 200: ok(track), ...errors(400, ...AUTH_ERRORS, 404) },
  },
  sourceTrack: {
    summary: 'A subject\'s track from one source (needs view_observation)',
    description: 'The source\'s fixes within its assignments to the subject; 404 for a source the tenant does not have.',
    tags: [tag],
    params: { ...subjectId, source: { description: 'Source id (UUID).', schema: uuid } },
    query: queryParams({ since: range.since, until: range.until }),
    responses: { 200: ok(track), ...errors(400, ...AUTH_ERRORS, 404) },
  },
  positions: {
    summary: 'Subjects\' last positions as a GeoJSON FeatureCollection (needs view_subject or view_observation)',
    description: 'Subjects without a position are left out; at most 10,000 features (subjects in id order).',
    tags: [tag],
    query: queryParams({ include_inactive: queryBoolean('Include deactivated subjects.') }),
    responses: { 200: ok(positions), ...errors(400, ...AUTH_ERRORS) },
  },
  kml: {
    summary: 'The KML feed: each subject\'s track and last position (needs view_observation)',
    description: 'One folder per subject: its track in the range (at most 20,000 newest points) and its last position. Streamed a subject at a time.',
    tags: [tag],
    query: queryParams({
      start: queryDateTime('Range start (the web app\'s name; `since` too). Default: 16 days ago.'),
      end: queryDateTime('Range end (`until` too). Default: no end.'),
      since: range.since, until: range.until,
      include_inactive: queryBoolean('Include deactivated subjects.'),
    }),
    responses: { 200: file('A KML 2.2 document.', 'application/vnd.google-earth.kml+xml'), ...fileErrors() },
  },
  kmlRoot: {
    summary: 'The KML feed\'s root: a network link to `subjects/kml` (needs view_observation)',
    description: 'The link repeats `start`, `end`, `since`, `until` and `include_inactive`, refreshes every 300 s, and carries no credentials: the viewer must authenticate to the server itself.',
    tags: [tag],
    query: queryParams({ start: queryDateTime('Passed on to the link.'), end: queryDateTime('Passed on to the link.'), since: range.since, until: range.until, include_inactive: queryBoolean('Passed on to the link.') }),
    responses: { 200: file('A KML 2.2 document of network links.', 'application/vnd.google-earth.kml+xml'), ...fileErrors() },
  },
  trackingData: {
    summary: 'Export fixes of subjects, CSV or JSON (needs export_observation)',
    description:
      'Fixes reached through assignments (a source\'s fixes within its assigned range), by subject id, then assignment, then time; without `subject_id` every subject (active only unless `include_inactive`). ' +
      'Columns (CSV header, JSON keys): subject_id, subject_name, subject_type, subject_subtype, source_id, manufacturer_id, source_type, provider, observation_id, recorded_at, latitude, longitude, observation_details (JSON text in CSV). ' +
      'JSON is one array. Read in keyset batches and streamed: any size, in bounded memory.',
    tags: [tag],
    query: queryParams({
      format: { enum: ['csv', 'json', 'CSV', 'JSON'], description: 'Default csv.' },
      subject_id: { type: 'string', format: 'uuid', 'x-error-code': 'invalid' },
      source_id: { type: 'string', format: 'uuid', 'x-error-code': 'invalid', description: 'Only this source\'s fixes.' },
      after_date: queryDateTime('Recorded at or after (er-client\'s name; `since` too). Default: no start.'),
      before_date: queryDateTime('Recorded at or before (`until` too). Default: no end.'),
      since: queryDateTime('As after_date.'),
      until: queryDateTime('As before_date.'),
      include_inactive: queryBoolean('Include deactivated subjects (default true with subject_id, else false).'),
      max_records: queryInteger('At most this many rows (default: all).'),
      current_status: queryBoolean('Each subject\'s latest position only.'),
      filter: str(20, { description: 'Accepted and ignored (er-client sends its observation filter flag; no fix is excluded here).' }),
      subject_chronofile: str(200, { description: 'Not supported: 400.' }),
    }),
    responses: { 200: file('CSV (text/csv) or, with format=json, a JSON array (application/json).', 'text/csv'), ...fileErrors() },
  },
  trackingMetadata: {
    summary: 'Export subjects with their sources and assignments, CSV or JSON (needs export_observation)',
    description:
      'JSON: one object per subject (`id, name, subject_type, subject_subtype, common_name, sex, is_active, last_position_date, last_position, sources[{id, manufacturer_id, source_type, model_name, provider, assigned_range{lower, upper, bounds}}]`). ' +
      'CSV: one row per assignment (subject columns, source columns, assigned_range_lower/upper); a subject without sources has one row.',
    tags: [tag],
    query: queryParams({
      format: { enum: ['csv', 'json', 'CSV', 'JSON'], description: 'Default csv.' },
      subject_id: { type: 'string', format: 'uuid', 'x-error-code': 'invalid' },
      include_inactive: queryBoolean('Include deactivated subjects.'),
    }),
    responses: { 200: file('CSV (text/csv) or, with format=json, a JSON array.', 'text/csv'), ...fileErrors() },
  },
} satisfies Record<string, RouteSchema>;

