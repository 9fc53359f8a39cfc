import { toIso } from '../../db/time.js';
import { subjectIconPath } from '../subjects/icons.js';
import type { ExportObservation, TrackAssignment, TrackPoint, TrackSubject } from './ports.js';

/**
 * The shapes tracks and exports are written in (issue 27), pure functions. GeoJSON features
 * carry the properties the original's clients read: the web app's track layer reads
 * `coordinateProperties.times` beside a LineString whose points are newest first (it prepends
 * realtime positions and treats the last point as the oldest); er-client's GPX converter skips a
 * feature whose `geometry` is null (no points).
 */

/** The original's default track colour, when a subject has none. */
const DEFAULT_STROKE = '#FFFF00';

/** The properties of a subject's features (tracks and last positions) as the original writes them. */
export function subjectProperties(subject: TrackSubject, imageBase: string) {
  const radio = subject.radioState ?? {};
  return {
    title: subject.name,
    subject_type: subject.subjectType,
    subject_subtype: subject.subjectSubtype,
    id: subject.id,
    stroke: subject.hex ?? DEFAULT_STROKE,
    'stroke-opacity': 1,
    'stroke-width': 2,
    image: imageBase + subjectIconPath(subject),
    last_voice_call_start_at: typeof radio.last_voice_call_start_at === 'string' ? radio.last_voice_call_start_at : null,
    location_requested_at: typeof radio.location_requested_at === 'string' ? radio.location_requested_at : null,
    radio_state_at: subject.radioRecordedAt === null ? null : toIso(subject.radioRecordedAt),
    radio_state: typeof radio.radio_state === 'string' ? radio.radio_state : 'na',
  };
}

export interface SubjectTrack {
  subject: TrackSubject;
  /** Newest first. */
  points: TrackPoint[];
  /** More points matched than the limit: the newest `limit` are served. */
  truncated: boolean;
}

/** A track: one LineString feature (geometry null without points), times newest first. */
export function trackCollection(track: SubjectTrack, imageBase: string) {
  const coordinates = track.points.map((p) => [p.longitude, p.latitude]);
  const times = track.points.map((p) => toIso(p.recordedAt));
  return {
    type: 'FeatureCollection' as const,
    features: [
      {
        type: 'Feature' as const,
        geometry: coordinates.length > 0 ? { type: 'LineString' as const, coordinates } : null,
        properties: { ...subjectProperties(track.subject, imageBase), coordinateProperties: { times }, truncated: track.truncated },
      },
    ],
  };
}

/** A subject's last position as a Point feature (null without one). */
export function positionFeature(subject: TrackSubject, imageBase: string) {
  const at = subject.lastPosition;
  if (!at) return null;
  const time = toIso(at.recordedAt);
  return {
    type: 'Feature' as const,
    geometry: { type: 'Point' as const, coordinates: [at.longitude, at.latitude] },
    properties: { ...subjectProperties(subject, imageBase), coordinateProperties: { time }, DateTime: time },
  };
}

// ---- trackingdata/export ----

export const TRACKING_COLUMNS = [
  'subject_id', 'subject_name', 'subject_type', 'subject_subtype', 'source_id', 'manufacturer_id', 'source_type', 'provider',
  'observation_id', 'recorded_at', 'latitude', 'longitude', 'observation_details',
] as const;

export interface TrackingRow {
  subject: TrackSubject;
  assignment: TrackAssignment | null;
  observation: ExportObservation;
}

/** One row of the tracking-data export; `observation_details` is the stored JSON text in CSV, parsed in JSON. */
export function trackingRecord({ subject, assignment, observation }: TrackingRow, json: boolean) {
  return {
    subject_id: subject.id,
    subject_name: subject.name,
    subject_type: subject.subjectType,
    subject_subtype: subject.subjectSubtype,
    source_id: assignment?.sourceId ?? subject.lastPosition?.sourceId ?? null,
    manufacturer_id: assignment?.manufacturerId ?? null,
    source_type: assignment?.sourceType ?? null,
    provider: assignment?.providerKey ?? null,
    observation_id: observation.id || null,
    recorded_at: toIso(observation.recordedAt),
    latitude: observation.latitude,
    longitude: observation.longitude,
    observation_details: json ? (JSON.parse(observation.additional) as unknown) : observation.additional,
  };
}

// ---- trackingmetadata/export ----

export const METADATA_COLUMNS = [
  'subject_id', 'subject_name', 'subject_type', 'subject_subtype', 'common_name', 'sex', 'is_active', 'last_position_date', 'last_latitude', 'last_longitude',
  'source_id', 'manufacturer_id', 'source_type', 'model_name', 'provider', 'assigned_range_lower', 'assigned_range_upper',
] as const;

export interface SubjectMetadata {
  subject: TrackSubject;
  assignments: TrackAssignment[];
}

const range = (a: TrackAssignment) => ({ lower: toIso(a.rangeLower), upper: a.rangeUpper === null ? null : toIso(a.rangeUpper), bounds: '[)' });

/** JSON: one object per subject, its sources with their assigned ranges (as the original's subjectsources). */
export function metadataObject({ subject, assignments }: SubjectMetadata) {
  return {
    id: subject.id,
    name: subject.name,
    subject_type: subject.subjectType,
    subject_subtype: subject.subjectSubtype,
    common_name: subject.commonName,
    sex: subject.sex,
    is_active: subject.isActive,
    last_position_date: subject.lastPosition ? toIso(subject.lastPosition.recordedAt) : null,
    last_position: subject.lastPosition ? { latitude: subject.lastPosition.latitude, longitude: subject.lastPosition.longitude } : null,
    sources: assignments.map((a) => ({ id: a.sourceId, manufacturer_id: a.manufacturerId, source_type: a.sourceType, model_name: a.modelName, provider: a.providerKey, assigned_range: range(a) })),
  };
}

/** CSV: one row per assignment (one with empty source columns for a subject without any). */
export function metadataRecords({ subject, assignments }: SubjectMetadata) {
  const base = {
    subject_id: subject.id, subject_name: subject.name, subject_type: subject.subjectType, subject_subtype: subject.subjectSubtype,
    common_name: subject.commonName, sex: subject.sex, is_active: subject.isActive,
    last_position_date: subject.lastPosition ? toIso(subject.lastPosition.recordedAt) : null,
    last_latitude: subject.lastPosition?.latitude ?? null, last_longitude: subject.lastPosition?.longitude ?? null,
  };
  if (assignments.length === 0) return [{ ...base, source_id: null, manufacturer_id: null, source_type: null, model_name: null, provider: null, assigned_range_lower: null, assigned_range_upper: null }];
  return assignments.map((a) => ({
    ...base, source_id: a.sourceId, manufacturer_id: a.manufacturerId, source_type: a.sourceType, model_name: a.modelName, provider: a.providerKey,
    assigned_range_lower: toIso(a.rangeLower), assigned_range_upper: a.rangeUpper === null ? null : toIso(a.rangeUpper),
  }));
}
