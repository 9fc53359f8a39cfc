import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { METADATA_COLUMNS, TRACKING_COLUMNS, metadataObject, metadataRecords, positionFeature, trackCollection, trackingRecord } from '../../domain/tracks/formats.js';
import { kmlRootDocument, subjectsKml } from '../../domain/tracks/kml-feed.js';
import type { ExportFormat, TrackService } from '../../domain/tracks/service.js';
import { type TrackQuery, unknownBooleansAsFalse } from '../../domain/tracks/query.js';
import { callerProfile } from '../presentation/caller-profile.js';
import { requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

const KML_TYPE = 'application/vnd.google-earth.kml+xml; charset=utf-8';
const FEED_NAME = 'FieldOps subjects';

function queryOf(ctx: AppContext): TrackQuery {
  const out: TrackQuery = {};
  for (const [name, raw] of Object.entries(ctx.query)) out[name] = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  // The earthranger profile reads an unrecognised boolean as false (as queryBoolean does).
  return callerProfile(ctx) === 'earthranger' ? unknownBooleansAsFalse(out) : out;
}

/**
 * A file answer: a download (`Content-Disposition: attachment`, and the original's
 * `X-DAS-Download-Filename`, which the web app names the saved file by), streamed. Nothing is
 * buffered: the stream is read as the socket drains (backpressure reaches the database walk).
 * A failure after the first byte cannot become an error answer: the connection is cut, so the
 * client sees a broken transfer, never a short file that looks whole.
 */
function sendFile(ctx: AppContext, type: string, filename: string, streams: [Readable, ...NodeJS.ReadWriteStream[]]): void {
  ctx.status = 200;
  ctx.type = type;
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('X-DAS-Download-Filename', filename);
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  const failed = (error: Error | null | undefined) => {
    if (!error || ctx.res.writableEnded) return;
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') ctx.state.log.error({ err: error }, 'an export failed after its first byte; the connection is cut');
    ctx.res.destroy();
  };
  if (streams.length === 1) {
    streams[0].once('error', failed);
    ctx.body = streams[0];
  } else {
    ctx.body = (pipeline as (...args: unknown[]) => NodeJS.ReadableStream)(...streams, failed);
  }
}

const stamp = () => new Date().toISOString().slice(0, 10);

/**
 * CSV through csv-stringify, one string per batch (its sync API): a header row, then records;
 * booleans as true/false, null as empty. One string per batch rather than one stream object per
 * row keeps the export's garbage (and so the server's RSS) down.
 */
async function* csvBatches<T>(batches: AsyncIterable<T[]>, columns: readonly string[], map: (item: T) => object | object[]): AsyncGenerator<string> {
  // escape_formulas: a cell a spreadsheet would run as a formula (= + - @ ...) gets a leading quote (CSV injection).
  const options = { columns: [...columns], escape_formulas: true, cast: { boolean: (value: boolean) => (value ? 'true' : 'false') } };
  let header = true;
  for await (const batch of batches) {
    const records = batch.flatMap((item) => map(item));
    if (records.length === 0) continue;
    yield stringify(records, { ...options, header });
    header = false;
  }
  if (header) yield stringify([], { ...options, header: true });
}

/** A JSON array written a batch at a time. */
async function* jsonArray<T>(batches: AsyncIterable<T[]>, map: (item: T) => unknown): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    yield (first ? '' : ',') + batch.map((item) => JSON.stringify(map(item))).join(',');
    first = false;
  }
  yield ']\n';
}

/**
 * A byte stream of the batches' text, buffering at most EXPORT_BUFFER bytes ahead of the socket:
 * the default object stream would hold up to 16 batches (each a few hundred kB of text) while
 * a slow client reads, and they would live long enough to grow the old generation (the RSS).
 */
const EXPORT_BUFFER = 64 * 1024;
const exportStream = (text: AsyncIterable<string>) => Readable.from(text, { objectMode: false, highWaterMark: EXPORT_BUFFER });

function exportFile<T>(ctx: AppContext, name: string, format: ExportFormat, batches: AsyncIterable<T[]>, columns: readonly string[], csv: (item: T) => object | object[], json: (item: T) => unknown): void {
  const filename = `${name}_${stamp()}.${format}`;
  if (format === 'json') sendFile(ctx, 'application/json; charset=utf-8', filename, [exportStream(jsonArray(batches, json))]);
  else sendFile(ctx, 'text/csv; charset=utf-8', filename, [exportStream(csvBatches(batches, columns, csv))]);
}

export function trackHandlers({ tracks, trustProxy }: { tracks: TrackService; trustProxy: boolean }) {
  return {
    async subjectTrack(ctx: AppContext) {
      const track = await tracks.track(requestContext(ctx), String(ctx.params.id), null, queryOf(ctx));
      ctx.body = trackCollection(track, requestOrigin(ctx, trustProxy));
    },
    async sourceTrack(ctx: AppContext) {
      const track = await tracks.track(requestContext(ctx), String(ctx.params.id), String(ctx.params.source), queryOf(ctx));
      ctx.body = trackCollection(track, requestOrigin(ctx, trustProxy));
    },
    async positions(ctx: AppContext) {
      const subjects = await tracks.lastPositions(requestContext(ctx), queryOf(ctx));
      const origin = requestOrigin(ctx, trustProxy);
      ctx.body = { type: 'FeatureCollection', features: subjects.flatMap((subject) => positionFeature(subject, origin) ?? []) };
    },
    async kml(ctx: AppContext) {
      const feed = await tracks.kml(requestContext(ctx), queryOf(ctx));
      sendFile(ctx, KML_TYPE, 'subjects.kml', [Readable.from(subjectsKml(FEED_NAME, feed.subjects))]);
    },
    async kmlRoot(ctx: AppContext) {
      const query = queryOf(ctx);
      tracks.kmlRoot(requestContext(ctx), query);
      // The link repeats the caller's range and filter; it names no credentials (a token in a file would leak).
      const kept = new URLSearchParams(Object.entries(query).filter(([name, value]) => ['start', 'end', 'since', 'until', 'include_inactive'].includes(name) && value !== undefined) as [string, string][]);
      const search = kept.size > 0 ? `?${kept.toString()}` : '';
      const href = `${requestOrigin(ctx, trustProxy)}/api/v1.0/subjects/kml${search}`;
      sendFile(ctx, KML_TYPE, 'subjects-root.kml', [Readable.from([kmlRootDocument(FEED_NAME, href)])]);
    },
    async trackingData(ctx: AppContext) {
      const { format, batches } = await tracks.trackingData(requestContext(ctx), queryOf(ctx));
      exportFile(ctx, 'trackingdata', format, batches, TRACKING_COLUMNS, (row) => trackingRecord(row, false), (row) => trackingRecord(row, true));
    },
    async trackingMetadata(ctx: AppContext) {
      const { format, batches } = await tracks.trackingMetadata(requestContext(ctx), queryOf(ctx));
      exportFile(ctx, 'trackingmetadata', format, batches, METADATA_COLUMNS, metadataRecords, metadataObject);
    },
  };
}
