import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import { NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Store } from '../ports.js';
import { type TrackingFilter, metadataBatches, subjectPages, trackingBatches } from './export.js';
import type { SubjectMetadata, SubjectTrack, TrackingRow } from './formats.js';
import type { TrackSubject } from './ports.js';
import { DEFAULT_TRACK_DAYS, QueryReader, type TimeRange, type TrackQuery, clip, readRange } from './query.js';

/**
 * At most this many points in one track (the newest are kept; the track says `truncated`).
 * 100,000 is 30 days of a fix every 26 s, the size the tracks target is measured at.
 */
export const TRACK_POINT_LIMIT = 100_000;
/** At most this many features in `subjects/geojson` (the most recently positioned are not preferred: subjects in id order). */
export const POSITION_FEATURE_LIMIT = 10_000;
/** At most this many points per subject in the KML feed (the newest). */
export const KML_POINT_LIMIT = 20_000;

const TRACK_RANGE = { since: ['since'], until: ['until'] } as const;
/** er-client sends after_date/before_date; the brief's since/until are accepted too. */
const EXPORT_RANGE = { since: ['after_date', 'since'], until: ['before_date', 'until'] } as const;
/** The web app's KML dialog sends start/end. */
const KML_RANGE = { since: ['start', 'since'], until: ['end', 'until'] } as const;

export type ExportFormat = 'csv' | 'json';

export interface TrackingExport {
  format: ExportFormat;
  batches: AsyncGenerator<TrackingRow[]>;
}

export interface MetadataExport {
  format: ExportFormat;
  batches: AsyncGenerator<SubjectMetadata[]>;
}

export interface KmlFeed {
  range: TimeRange;
  /** Each subject with its track (newest first), one at a time. */
  subjects: AsyncGenerator<SubjectTrack>;
}

/**
 * Tracks, last positions, the KML feed and the tracking exports (issue 27). Knows no HTTP.
 * Tracks and positions need `view_observation` (positions: `view_subject` too suffices), the
 * exports `export_observation`. Every read is the caller's tenant; another tenant's subject or
 * source is not found. Inputs are all checked before anything is read, so an export's 400 comes
 * before its first byte.
 */
export class TrackService {
  constructor(protected readonly deps: { store: Store; clock: Clock }) {}

  private get repo() {
    return this.deps.store.repos.tracks;
  }

  private async subject(tenantId: string, id: string): Promise<TrackSubject> {
    const subject = isUuid(id) ? await this.repo.findSubject(tenantId, id.toLowerCase()) : null;
    if (!subject) throw new NotFoundError('No such subject.');
    return subject;
  }

  /** A subject's track, optionally from one source: fixes within each assignment's range, newest first. */
  async track(ctx: RequestContext, subjectId: string, sourceId: string | null, query: TrackQuery): Promise<SubjectTrack> {
    const { tenantId } = requirePermission(ctx, 'view_observation');
    const reader = new QueryReader(query);
    const range = readRange(reader, this.deps.clock.now(), DEFAULT_TRACK_DAYS, TRACK_RANGE);
    reader.done();
    const subject = await this.subject(tenantId, subjectId);
    let source: string | null = null;
    if (sourceId !== null) {
      source = isUuid(sourceId) ? sourceId.toLowerCase() : null;
      if (source === null || !(await this.repo.sourceExists(tenantId, source))) throw new NotFoundError('No such source.');
    }
    return this.trackOf(tenantId, subject, source, range, TRACK_POINT_LIMIT);
  }

  private async trackOf(tenantId: string, subject: TrackSubject, sourceId: string | null, range: TimeRange, limit: number): Promise<SubjectTrack> {
    const windows = (await this.repo.assignmentsOf(tenantId, [subject.id], sourceId)).flatMap((a) => {
      const window = clip(range, a.rangeLower, a.rangeUpper);
      return window ? [{ sourceId: a.sourceId, ...window }] : [];
    });
    // One more than the limit tells whether anything was left out.
    const points = await this.repo.trackPoints(tenantId, windows, limit + 1);
    const truncated = points.length > limit;
    if (truncated) points.length = limit;
    return { subject, points, truncated };
  }

  /** The subjects' last positions (subjects without one are left out), at most POSITION_FEATURE_LIMIT. */
  async lastPositions(ctx: RequestContext, query: TrackQuery): Promise<TrackSubject[]> {
    const { tenantId } = requirePermission(ctx, 'view_subject', 'view_observation');
    const reader = new QueryReader(query);
    const includeInactive = reader.boolean('include_inactive', false);
    reader.done();
    const found: TrackSubject[] = [];
    for await (const page of subjectPages(this.repo, tenantId, { subjectId: null, includeInactive, positioned: true })) {
      found.push(...page.slice(0, POSITION_FEATURE_LIMIT - found.length));
      if (found.length >= POSITION_FEATURE_LIMIT) break;
    }
    return found;
  }

  /** Permission and query of the KML root (the feed's links repeat the query). */
  kmlRoot(ctx: RequestContext, query: TrackQuery): void {
    requirePermission(ctx, 'view_observation');
    const reader = new QueryReader(query);
    readRange(reader, this.deps.clock.now(), DEFAULT_TRACK_DAYS, KML_RANGE);
    reader.boolean('include_inactive', false);
    reader.done();
  }

  /** The KML feed: every subject (active ones unless asked) with its track in the range and its last position. */
  async kml(ctx: RequestContext, query: TrackQuery): Promise<KmlFeed> {
    const { tenantId } = requirePermission(ctx, 'view_observation');
    const reader = new QueryReader(query);
    const range = readRange(reader, this.deps.clock.now(), DEFAULT_TRACK_DAYS, KML_RANGE);
    const includeInactive = reader.boolean('include_inactive', false);
    reader.done();
    const repo = this.repo;
    const trackOf = (subject: TrackSubject) => this.trackOf(tenantId, subject, null, range, KML_POINT_LIMIT);
    async function* subjects(): AsyncGenerator<SubjectTrack> {
      for await (const page of subjectPages(repo, tenantId, { subjectId: null, includeInactive, positioned: false })) {
        for (const subject of page) yield await trackOf(subject);
      }
    }
    return { range, subjects: subjects() };
  }

  /** `trackingdata/export`: fixes through assignments, filtered, streamed in batches. */
  async trackingData(ctx: RequestContext, query: TrackQuery): Promise<TrackingExport> {
    const { tenantId } = requirePermission(ctx, 'export_observation');
    const reader = new QueryReader(query);
    const format = reader.choice('format', ['csv', 'json'] as const, 'csv');
    const range = readRange(reader, this.deps.clock.now(), null, EXPORT_RANGE);
    const subjectId = reader.uuid('subject_id');
    const sourceId = reader.uuid('source_id');
    // The default is true for a named subject (er-client's default), false for the whole tenant (the web app sends nothing).
    const includeInactive = reader.boolean('include_inactive', subjectId !== null);
    const maxRecords = reader.positiveInteger('max_records', Number.MAX_SAFE_INTEGER);
    const currentStatus = reader.boolean('current_status', false);
    reader.refuse('subject_chronofile', 'subject_chronofile is not supported.', ['Name the subject by subject_id.']);
    reader.done();
    if (subjectId !== null) await this.subject(tenantId, subjectId);
    if (sourceId !== null && !(await this.repo.sourceExists(tenantId, sourceId))) throw new NotFoundError('No such source.');
    const filter: TrackingFilter = { subjects: { subjectId, includeInactive, positioned: false }, sourceId, range, maxRecords, currentStatus };
    return { format, batches: trackingBatches(this.repo, tenantId, filter) };
  }

  /** `trackingmetadata/export`: subjects with their sources and assignments, streamed in pages. */
  async trackingMetadata(ctx: RequestContext, query: TrackQuery): Promise<MetadataExport> {
    const { tenantId } = requirePermission(ctx, 'export_observation');
    const reader = new QueryReader(query);
    const format = reader.choice('format', ['csv', 'json'] as const, 'csv');
    const subjectId = reader.uuid('subject_id');
    const includeInactive = reader.boolean('include_inactive', false);
    reader.done();
    return { format, batches: metadataBatches(this.repo, tenantId, { subjectId, includeInactive, positioned: false }) };
  }
}
