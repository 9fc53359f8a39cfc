/**
 * `fieldops observations import`: a GPS track (GPX or KML: cli/record/kml.ts) or a CSV (`recorded_at,latitude,longitude`
 * plus optional columns, kept in `additional`) queued as sensor observations of a source this
 * laptop creates (`manufacturer_id` derived from the profile and the subject unless given). The
 * sensor API takes up to 1000 per request and treats a repeat of one source's `recorded_at` as a
 * duplicate; ids derive from the file's content, the point and every option that changes what is
 * stored (subject, source type, provider, device, format), so importing twice queues nothing and
 * an import under a corrected subject queues the points for that subject.
 */
import fs from 'node:fs';
import { isUuidLike } from './uuid.js';
import { contentDigest, derivedId } from '../../sync/outbox/ids.js';
import type { NewEntry } from '../../sync/outbox/model.js';
import type { LintFinding } from '../lint/lint-file.js';
import type { LintReport } from '../lint/report.js';
import { UserFacingError } from '../errors.js';
import { CsvSyntaxError, parseCsv } from './csv.js';
import { checkLocation, checkTime } from './event-record.js';
import { MAX_GPX_BYTES, parseGpx, type GpxPoint } from './gpx.js';
import { MAX_KML_BYTES, parseKml } from './kml.js';
import type { XmlProblem } from './xml-read.js';
import { readImportFile } from './import-events.js';
import type { OfflineStores } from './open.js';

export interface ObservationImport {
  file: string;
  shownPath: string;
  format: 'gpx' | 'kml' | 'csv';
  subject: string;
  sourceType: string;
  providerKey: string;
  manufacturerId: string;
  skipInvalid: boolean;
}

interface Point {
  line: number;
  latitude: number;
  longitude: number;
  time: string | null;
  additional: Record<string, unknown>;
  columns: Map<string, number>;
  /** Where the point is when no column says (a GPX point: its element's column). */
  column?: number;
}

export async function importObservations(stores: OfflineStores, input: ObservationImport) {
  const limit = input.format === 'gpx' ? MAX_GPX_BYTES : input.format === 'kml' ? MAX_KML_BYTES : null;
  if (limit !== null && (fs.statSync(input.file, { throwIfNoEntry: false })?.size ?? 0) > limit) {
    throw new UserFacingError(`${input.file} is larger than ${limit / 1024 / 1024} MiB`, 'split the track into several files (one per day, for example)', 2);
  }
  const bytes = readImportFile(input.file);
  const digest = contentDigest(bytes);
  const started = performance.now();
  const text = bytes.toString('utf8');
  const findings: LintFinding[] = [];
  const points: Point[] = input.format === 'gpx' ? xmlPoints(parseGpx(text), findings, GPX_HINT) : input.format === 'kml' ? xmlPoints(parseKml(text), findings, KML_HINT) : csvPoints(text, findings);
  const entries: NewEntry[] = [];
  let invalid = 0;
  const subject = isUuidLike(input.subject) ? { subject_id: input.subject.toLowerCase() } : { subject_name: input.subject };
  // The idempotency identity: the file's content plus every option that changes what is stored
  // or where it goes. The same import again queues nothing; a corrected --subject (or source,
  // provider, device, format) queues the points anew.
  const identity = JSON.stringify([input.format, subject, input.sourceType, input.providerKey, input.manufacturerId]);
  points.forEach((point, index) => {
    const problems: Array<[string, string, string, string]> = [];
    if (!point.time || !checkTime(point.time)) problems.push(['recorded_at', 'invalid_datetime', `recorded_at "${point.time ?? ''}" is not an ISO 8601 date-time with an offset`, 'for example 2026-11-20T10:00:00Z']);
    if (!checkLocation(point.latitude, point.longitude)) problems.push(['latitude', 'invalid_location', 'latitude is -90..90 and longitude -180..180', 'check the point\'s lat and lon']);
    for (const [field, code, message, hint] of problems) {
      findings.push({ document: `/${index + 1}`, pointer: field === 'recorded_at' ? '/recorded_at' : '/location', line: point.line, column: point.columns.get(field) ?? point.column ?? 1, severity: 'error', code, category: 'validation', message: `point ${index + 1}: ${message}`, hints: [hint] });
    }
    if (problems.length) {
      invalid++;
      return;
    }
    const observation = { location: { lat: point.latitude, lon: point.longitude }, recorded_at: point.time, manufacturer_id: input.manufacturerId, source_type: input.sourceType, ...subject, additional: point.additional };
    const id = derivedId(digest, 'observation', identity, index);
    entries.push({ id, kind: 'observation', target: null, body: { sourceType: input.sourceType, providerKey: input.providerKey, observation }, batchKey: `${input.sourceType}/${input.providerKey}`, source: `${input.shownPath}:${point.line}` });
  });
  const validateMs = performance.now() - started;
  const report: LintReport = { files: [{ path: input.shownPath, kind: 'document', documents: points.map((_, i) => `/${i + 1}`), findings }], choiceSource: null };
  const fileProblems = findings.length - findings.filter((f) => f.document !== '').length;
  const blocked = fileProblems > 0 || (invalid > 0 && !input.skipInvalid) || points.length === 0;
  const queued = blocked ? 0 : await stores.outbox.enqueue(entries);
  return { report, points: points.length, valid: entries.length, invalid, queued, fileProblems, validateMs };
}

const fileFinding = (line: number, column: number, code: string, message: string, hint: string): LintFinding => ({ document: '', pointer: '', line, column, severity: 'error', code, category: 'validation', message, hints: [hint] });

const GPX_HINT = 'a GPX file is XML: <gpx><trk><trkseg><trkpt lat=".." lon=".."><time>..</time></trkpt>...';
const KML_HINT = 'a KML file is XML: <kml><Document><Placemark><TimeStamp><when>..</when></TimeStamp><Point><coordinates>lon,lat</coordinates></Point></Placemark>, or a <gx:Track> of <when> and <gx:coord>';

function xmlPoints({ points, problems }: { points: GpxPoint[]; problems: XmlProblem[] }, findings: LintFinding[], hint: string): Point[] {
  for (const p of problems) findings.push(fileFinding(p.line, p.column, 'invalid_xml', p.message, hint));
  return points.map((p) => ({ line: p.line, column: p.column, latitude: p.latitude, longitude: p.longitude, time: p.time, additional: p.elevation === null ? {} : { elevation: p.elevation }, columns: new Map() }));
}

function csvPoints(text: string, findings: LintFinding[]): Point[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    findings.push(fileFinding(error.line, error.column, 'invalid_csv', `not valid CSV: ${error.message}`, 'quote cells that contain commas, quotes or line breaks ("a ""quoted"" word")'));
    return [];
  }
  const header = records.shift();
  const names = (header?.fields ?? []).map((f) => f.trim());
  for (const required of ['recorded_at', 'latitude', 'longitude']) {
    if (!names.includes(required)) {
      findings.push(fileFinding(header?.line ?? 1, 1, 'missing_column', `the header has no "${required}" column`, 'the header is recorded_at,latitude,longitude plus optional columns'));
    }
  }
  const columns = new Map(names.map((n, i) => [n, i + 1]));
  return records.map((record) => {
    const cell = (name: string) => (record.fields[(columns.get(name) ?? 0) - 1] ?? '').trim();
    const additional: Record<string, unknown> = {};
    for (const name of names) {
      if (['recorded_at', 'latitude', 'longitude'].includes(name) || cell(name) === '') continue;
      const raw = cell(name);
      additional[name] = raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    }
    return { line: record.line, latitude: cell('latitude') === '' ? NaN : Number(cell('latitude')), longitude: cell('longitude') === '' ? NaN : Number(cell('longitude')), time: cell('recorded_at') || null, additional, columns };
  });
}
