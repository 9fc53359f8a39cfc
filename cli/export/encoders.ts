/**
 * Rows to text, one format each, in pieces: `head`, then `encode(row)` per row (null: the row
 * cannot be written in this format, e.g. an event without a location in GPX or KML; counted as
 * skipped), then `tail()`. Stateful where the format groups rows (a track per subject and
 * source); what is held between rows is bounded (KML: at most TRACK_CHUNK points).
 * CSV through csv-stringify, KML through protocol/geo/kml.ts, GPX through ./gpx.ts.
 */
import { stringify } from 'csv-stringify/sync';
import { KML_HEAD, KML_TAIL, escapeXml, placemark, type KmlPoint } from '../../protocol/geo/kml.js';
import { GPX_HEAD, GPX_TAIL, TRACK_END, gpxTime, trackPoint, trackStart, wayPoint } from './gpx.js';
import type { EventRow, SubjectRow, TrackPoint } from './rows.js';

export type ExportKind = 'events' | 'tracks' | 'subjects';
export type ExportFormat = 'csv' | 'geojson' | 'kml' | 'gpx';

export interface Encoder<T> {
  head: string;
  encode(row: T): string | null;
  tail(): string;
}

/** KML line strings are cut into placemarks of this many points (each repeats the last point of the one before). */
export const TRACK_CHUNK = 5000;

// NOTE: csv-stringify writes a boolean as "1" or "" by default; true/false reads back unambiguously.
// escape_formulas: a cell a spreadsheet would run as a formula (= + - @, tab, CR) gets a leading quote (OWASP's CSV injection advice).
const CSV_OPTIONS = { escape_formulas: true, cast: { boolean: (v: boolean) => (v ? 'true' : 'false') } };
const csvLine = (values: unknown[]) => stringify([values.map((v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : v))], CSV_OPTIONS);

function csv<T>(columns: string[], values: (row: T) => unknown[]): Encoder<T> {
  return { head: csvLine(columns), encode: (row) => csvLine(values(row)), tail: () => '' };
}

/** A FeatureCollection written feature by feature. */
function geojson<T>(feature: (row: T) => object): Encoder<T> {
  let first = true;
  return {
    head: '{"type":"FeatureCollection","features":[\n',
    encode: (row) => {
      const text = (first ? '' : ',\n') + JSON.stringify(feature(row));
      first = false;
      return text;
    },
    tail: () => '\n]}\n',
  };
}

const point = (latitude: number | null, longitude: number | null) => (latitude === null || longitude === null ? null : { type: 'Point', coordinates: [longitude, latitude] });

function kmlPoints<T>(document: string, folder: string, mark: (row: T) => Parameters<typeof placemark>[0] | null): Encoder<T> {
  return {
    head: `${KML_HEAD}<name>${escapeXml(document)}</name><Folder><name>${escapeXml(folder)}</name>\n`,
    encode: (row) => {
      const p = mark(row);
      return p ? placemark(p) + '\n' : null;
    },
    tail: () => `</Folder>${KML_TAIL}`,
  };
}

const EVENT_COLUMNS = ['id', 'serial_number', 'event_type', 'title', 'time', 'state', 'priority', 'latitude', 'longitude', 'updated_at', 'origin', 'event_details'];
const eventValues = (e: EventRow) => [e.id, e.serialNumber, e.eventType, e.title, e.time, e.state, e.priority, e.latitude, e.longitude, e.updatedAt, e.origin, e.details];
const eventName = (e: EventRow) => e.title || `${e.eventType}${e.serialNumber === null ? '' : ` ${e.serialNumber}`}`;

export function eventEncoder(format: ExportFormat): Encoder<EventRow> {
  switch (format) {
    case 'csv':
      return csv(EVENT_COLUMNS, eventValues);
    case 'geojson':
      return geojson((e) => ({ type: 'Feature', id: e.id, geometry: point(e.latitude, e.longitude), properties: Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, eventValues(e)[i] ?? null]).filter(([c]) => c !== 'latitude' && c !== 'longitude')) }));
    case 'kml':
      return kmlPoints('fieldops events', 'Events', (e) =>
        e.latitude === null || e.longitude === null ? null : { name: eventName(e), ...(e.time ? { when: e.time } : {}), geometry: { type: 'Point', at: { latitude: e.latitude, longitude: e.longitude } }, data: { id: e.id, event_type: e.eventType, state: e.state, priority: e.priority, origin: e.origin } },
      );
    case 'gpx':
      return { head: GPX_HEAD, encode: (e) => (e.latitude === null || e.longitude === null ? null : wayPoint({ latitude: e.latitude, longitude: e.longitude, time: e.time, name: eventName(e), description: e.id, type: e.eventType })), tail: () => GPX_TAIL };
  }
}

const SUBJECT_COLUMNS = ['id', 'name', 'subject_type', 'subject_subtype', 'is_active', 'last_position_date', 'latitude', 'longitude'];
const subjectValues = (s: SubjectRow) => [s.id, s.name, s.subjectType, s.subjectSubtype, s.active, s.lastPositionAt, s.latitude, s.longitude];

export function subjectEncoder(format: ExportFormat): Encoder<SubjectRow> {
  switch (format) {
    case 'csv':
      return csv(SUBJECT_COLUMNS, subjectValues);
    case 'geojson':
      return geojson((s) => ({ type: 'Feature', id: s.id, geometry: point(s.latitude, s.longitude), properties: { id: s.id, name: s.name, subject_type: s.subjectType, subject_subtype: s.subjectSubtype, is_active: s.active, last_position_date: s.lastPositionAt } }));
    case 'kml':
      return kmlPoints('fieldops subjects', 'Subjects', (s) =>
        s.latitude === null || s.longitude === null ? null : { name: s.name, ...(s.lastPositionAt ? { when: s.lastPositionAt } : {}), geometry: { type: 'Point', at: { latitude: s.latitude, longitude: s.longitude } }, data: { id: s.id, subject_subtype: s.subjectSubtype } },
      );
    case 'gpx':
      return { head: GPX_HEAD, encode: (s) => (s.latitude === null || s.longitude === null ? null : wayPoint({ latitude: s.latitude, longitude: s.longitude, time: s.lastPositionAt, name: s.name, description: s.id, type: s.subjectSubtype })), tail: () => GPX_TAIL };
  }
}

const TRACK_COLUMNS = ['subject', 'source', 'source_type', 'recorded_at', 'latitude', 'longitude', 'elevation', 'status'];
const trackKey = (p: TrackPoint) => `${p.subject}\u0000${p.source}`;
const trackName = (p: TrackPoint) => p.subject;
const trackDescription = (p: TrackPoint) => `source ${p.source} (${p.sourceType})`;

export function trackEncoder(format: ExportFormat): Encoder<TrackPoint> {
  switch (format) {
    case 'csv':
      // The columns `observations import` reads back: recorded_at, latitude, longitude (+ elevation).
      return csv(TRACK_COLUMNS, (p) => [p.subject, p.source, p.sourceType, p.recordedAt, p.latitude, p.longitude, p.elevation, p.status]);
    case 'geojson':
      return geojson((p) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: p.elevation === null ? [p.longitude, p.latitude] : [p.longitude, p.latitude, p.elevation] }, properties: { subject: p.subject, source: p.source, source_type: p.sourceType, recorded_at: p.recordedAt, status: p.status } }));
    case 'gpx':
      return gpxTracks();
    case 'kml':
      return kmlTracks();
  }
}

function gpxTracks(): Encoder<TrackPoint> {
  let current: string | null = null;
  return {
    head: GPX_HEAD,
    encode: (p) => {
      const pointText = trackPoint({ latitude: p.latitude, longitude: p.longitude, time: p.recordedAt, elevation: p.elevation });
      if (pointText === null) return null;
      const key = trackKey(p);
      const start = key === current ? '' : `${current === null ? '' : TRACK_END}${trackStart(trackName(p), trackDescription(p))}`;
      current = key;
      return start + pointText;
    },
    tail: () => `${current === null ? '' : TRACK_END}${GPX_TAIL}`,
  };
}

/** KML's document with Google's extension namespace declared (gx:Track). */
const KML_TRACKS_HEAD = KML_HEAD.replace('<kml xmlns="http://www.opengis.net/kml/2.2">', '<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">');

interface TimedPoint extends KmlPoint {
  elevation: number | null;
}

/**
 * A track placemark: a gx:Track (a `<when>` per point, then a `<gx:coord>` per point), which
 * keeps every point's time, so the file reads back (`observations import`) with the same times;
 * KML 2.2's LineString has no per-point time. Viewers without gx draw nothing for it.
 */
function trackPlacemark(name: string, points: readonly TimedPoint[], times: readonly string[]): string {
  const whens = times.map((t) => `<when>${escapeXml(t)}</when>`).join('');
  const coords = points.map((p) => `<gx:coord>${p.longitude} ${p.latitude}${p.elevation === null ? '' : ` ${p.elevation}`}</gx:coord>`).join('');
  return `<Placemark><name>${escapeXml(name)}</name><TimeSpan><begin>${escapeXml(times[0]!)}</begin><end>${escapeXml(times[times.length - 1]!)}</end></TimeSpan><gx:Track>${whens}${coords}</gx:Track></Placemark>`;
}

/** One folder per track; its points in gx:Track placemarks of at most TRACK_CHUNK points. */
function kmlTracks(): Encoder<TrackPoint> {
  let current: string | null = null;
  let name = '';
  let points: TimedPoint[] = [];
  let times: string[] = [];
  let carried = false; // points[0] repeats the last point of the placemark before
  const flush = (keepLast: boolean) => {
    if (points.length === 0 || (carried && points.length === 1)) return '';
    const text = trackPlacemark(name, points, times) + '\n';
    points = keepLast ? points.slice(-1) : [];
    times = keepLast ? times.slice(-1) : [];
    carried = keepLast;
    return text;
  };
  return {
    head: `${KML_TRACKS_HEAD}<name>fieldops tracks</name>\n`,
    encode: (p) => {
      let text = '';
      const key = trackKey(p);
      if (key !== current) {
        text += flush(false) + (current === null ? '' : '</Folder>\n');
        name = trackName(p);
        text += `<Folder><name>${escapeXml(name)}</name>\n`;
        current = key;
      }
      points.push({ latitude: p.latitude, longitude: p.longitude, elevation: p.elevation !== null && Number.isFinite(p.elevation) ? p.elevation : null });
      times.push(gpxTime(p.recordedAt) ?? p.recordedAt);
      if (points.length >= TRACK_CHUNK) text += flush(true);
      return text;
    },
    tail: () => `${flush(false)}${current === null ? '' : '</Folder>\n'}${KML_TAIL}`,
  };
}
