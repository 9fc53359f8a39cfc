/**
 * Server tracks into the mirror (issue 27), for `fieldops export tracks` offline.
 *
 * The subjects the user can see and their sources come from `trackingmetadata/export?format=json`
 * (active subjects, as the web app's map); each subject's source is then read from
 * `trackingdata/export?format=json&subject_id&source_id&since`, oldest first, a page of at most
 * PAGE_ROWS at a time. One source per request keeps the rows in time order, so a page cut short
 * (or a sync stopped by the cap) resumes at the newest fix it holds: each page is committed with
 * its source's checkpoint (`pulled_track_sources`: the newest fix pulled), and the next sync asks
 * `since` that. `since` is inclusive: the fix at the checkpoint comes again and is ignored (the
 * mirror is unique by source and instant; the fix's subject columns are refreshed from it, so a
 * fix the server now attributes to another subject moves to it). A source never pulled starts
 * WINDOW_DAYS back (the server's `show_track_days` default).
 *
 * What the user may no longer see leaves the laptop: the metadata listing is the whole set of
 * subjects and sources the user sees, so the fixes (and the checkpoint) of every subject's
 * source the mirror holds that it no longer lists (an assignment deleted, a subject deleted or
 * made inactive, a source moved out of the user's subject groups) are deleted in one
 * transaction, before anything is pulled. A 403 (the export_observation permission removed)
 * deletes every pulled fix and checkpoint.
 *
 * Bounded: at most `maxPoints` fixes per sync (the rest comes with the next one), at most
 * PAGE_ROWS per response. A server without the exports (404) or a user without
 * `export_observation` (403) is not a failed sync: the step is skipped with a note (a 403 also
 * deletes the pulled tracks, and says so).
 *
 * NOTE: a fix recorded before its source's checkpoint but posted to the server after it (a
 * collar uploading a backlog late) is not pulled: the exports filter by `recorded_at` only.
 */
import type { Knex } from 'knex';
import { unexpectedResponse, parseJsonBody } from '../http-errors.js';
import type { Transport } from '../http.js';

export const WINDOW_DAYS = 16;
export const MAX_POINTS_PER_SYNC = 50_000;
const PAGE_ROWS = 5_000;

export interface TrackPullReport {
  /** Fixes new to the mirror. */
  pulled: number;
  /** Fixes received (a page repeats the fix at its `since`). */
  received: number;
  sources: number;
  requests: number;
  /** The cap stopped the pull: more fixes wait for the next sync. */
  capped: boolean;
  /** Fixes deleted: of sources the user no longer sees, or all of them on a 403. */
  removed: number;
  /** Why the step was skipped (an older server, no permission); null when it ran. */
  skipped: string | null;
}

export interface TrackPullOptions {
  transport: Transport;
  server: string;
  knex: Knex;
  now: () => number;
  maxPoints?: number;
  onProgress?: (pulled: number) => void;
}

interface Source {
  subjectId: string;
  sourceId: string;
}

const pairKey = (subjectId: string, sourceId: string) => `${subjectId} ${sourceId}`;

type Rec = Record<string, unknown>;

const METADATA = '/api/v1.0/trackingmetadata/export';
const TRACKING = '/api/v1.0/trackingdata/export';

class Skip extends Error {}
/** The user may not export tracking data (any more): what was pulled goes. */
class NotAllowed extends Skip {}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export async function pullTracks(options: TrackPullOptions): Promise<TrackPullReport> {
  const report: TrackPullReport = { pulled: 0, received: 0, sources: 0, requests: 0, capped: false, removed: 0, skipped: null };
  const maxPoints = options.maxPoints ?? MAX_POINTS_PER_SYNC;
  const get = async (path: string, what: string): Promise<unknown> => {
    report.requests++;
    const response = await options.transport({ method: 'GET', url: `${options.server}${path}`, headers: { accept: 'application/json' } });
    if (response.status === 404 && report.requests === 1) throw new Skip('this server does not offer tracking data exports (an older server): server tracks were not pulled');
    // A subject or source removed since the metadata was read: nothing to pull for it.
    if (response.status === 404) return [];
    if (response.status === 403) throw new NotAllowed('not allowed to export tracking data (the export_observation permission): server tracks were not pulled');
    if (response.status !== 200) throw unexpectedResponse(response, what, options.server);
    return parseJsonBody(response, what);
  };
  try {
    const listing = await get(`${METADATA}?format=json`, 'the subjects and their sources');
    // The listing decides what is deleted: anything but a list is a failure, never "nothing visible".
    if (!Array.isArray(listing)) throw new Error(`${options.server} answered the subjects and their sources with something other than a list`);
    const sources = sourcesOf(listing);
    report.sources = sources.length;
    report.removed = await removeUnlisted(options.knex, new Set(sources.map((source) => pairKey(source.subjectId, source.sourceId))));
    const checkpoints = new Map<string, number>();
    for (const row of await options.knex('pulled_track_sources').select('subject_id', 'source_id', 'newest_ms')) checkpoints.set(pairKey(row.subject_id, row.source_id), Number(row.newest_ms));
    const windowStart = options.now() - WINDOW_DAYS * 86_400_000;
    for (const source of sources) {
      const key = pairKey(source.subjectId, source.sourceId);
      for (;;) {
        const remaining = maxPoints - report.pulled;
        if (remaining <= 0) {
          report.capped = true;
          return report;
        }
        const newest = checkpoints.get(key) ?? null;
        const since = new Date(newest ?? windowStart).toISOString();
        // From a checkpoint, the first row is the fix at it again (since is inclusive): one more asked.
        const limit = Math.min(PAGE_ROWS, remaining + (newest === null ? 0 : 1));
        const query = new URLSearchParams({ format: 'json', subject_id: source.subjectId, source_id: source.sourceId, since, max_records: String(limit) });
        const body = await get(`${TRACKING}?${query}`, 'the tracking data');
        const rows = Array.isArray(body) ? (body as Rec[]) : [];
        report.received += rows.length;
        const stored = await storePage(options.knex, source, rows, newest, options.now);
        report.pulled += stored.added;
        if (stored.newest !== null) checkpoints.set(key, stored.newest);
        options.onProgress?.(report.pulled);
        // A page not full is the end of the source; a full page that brought nothing newer cannot advance.
        if (rows.length < limit || stored.newest === null || stored.newest === newest) break;
      }
    }
  } catch (error) {
    if (!(error instanceof Skip)) throw error;
    report.skipped = error.message;
    if (error instanceof NotAllowed) {
      report.removed += await removeAll(options.knex);
      if (report.removed > 0) report.skipped += `; the ${report.removed} ${report.removed === 1 ? 'fix' : 'fixes'} pulled before were deleted from this laptop`;
    }
  }
  return report;
}

/**
 * Deletes the fixes and checkpoints of every (subject, source) the mirror holds that the
 * listing no longer names, in one transaction; the number of fixes deleted. The held pairs are
 * read from the (subject_id, source_id) index and the checkpoints, never the fixes themselves.
 */
async function removeUnlisted(knex: Knex, listed: ReadonlySet<string>): Promise<number> {
  return knex.transaction(async (trx) => {
    const held = await trx.raw('SELECT DISTINCT subject_id, source_id FROM pulled_track_points UNION SELECT subject_id, source_id FROM pulled_track_sources') as Array<{ subject_id: string; source_id: string }>;
    let removed = 0;
    for (const pair of held) {
      if (listed.has(pairKey(pair.subject_id, pair.source_id))) continue;
      removed += await trx('pulled_track_points').where({ subject_id: pair.subject_id, source_id: pair.source_id }).delete();
      await trx('pulled_track_sources').where({ subject_id: pair.subject_id, source_id: pair.source_id }).delete();
    }
    return removed;
  });
}

async function removeAll(knex: Knex): Promise<number> {
  return knex.transaction(async (trx) => {
    const removed = await trx('pulled_track_points').delete();
    await trx('pulled_track_sources').delete();
    return removed;
  });
}

/** Each (subject, source) pair of the metadata export, in its order. */
function sourcesOf(body: unknown): Source[] {
  const found: Source[] = [];
  const seen = new Set<string>();
  for (const subject of Array.isArray(body) ? (body as Rec[]) : []) {
    const subjectId = str(subject.id);
    if (!subjectId) continue;
    for (const source of Array.isArray(subject.sources) ? (subject.sources as Rec[]) : []) {
      const sourceId = str(source.id);
      if (!sourceId || seen.has(`${subjectId} ${sourceId}`)) continue;
      seen.add(`${subjectId} ${sourceId}`);
      found.push({ subjectId, sourceId });
    }
  }
  return found;
}

/**
 * One page in one transaction with its source's checkpoint. A fix already held (same source and
 * instant) is not added again, but takes the subject the server now gives it: an assignment
 * changed on the server re-attributes fixes the mirror holds.
 */
async function storePage(knex: Knex, source: Source, rows: Rec[], held: number | null, now: () => number): Promise<{ added: number; newest: number | null }> {
  let added = 0;
  let newest = held;
  let newestText: string | null = null;
  await knex.transaction(async (trx) => {
    for (const row of rows) {
      const recordedAt = str(row.recorded_at);
      const at = recordedAt ? Date.parse(recordedAt) : NaN;
      const latitude = num(row.latitude);
      const longitude = num(row.longitude);
      if (!recordedAt || Number.isNaN(at) || latitude === null || longitude === null) continue;
      if (newest === null || at > newest) {
        newest = at;
        newestText = recordedAt;
      }
      const details = row.observation_details && typeof row.observation_details === 'object' ? (row.observation_details as Rec) : {};
      await trx('pulled_track_points')
        .insert({
          source_id: str(row.source_id) ?? source.sourceId,
          recorded_ms: at,
          recorded_at: recordedAt,
          subject_id: str(row.subject_id) ?? source.subjectId,
          subject_name: str(row.subject_name),
          manufacturer_id: str(row.manufacturer_id),
          provider: str(row.provider),
          source_type: str(row.source_type),
          latitude,
          longitude,
          elevation: num(details.elevation),
        })
        .onConflict(['source_id', 'recorded_ms'])
        .ignore();
      // NOTE: the mirror is SQLite: changes() is 0 when the fix was held already (the insert ignored).
      const changed = (await trx.raw('SELECT changes() AS n')) as Array<{ n: number }>;
      if (Number(changed[0]?.n ?? 0) > 0) {
        added++;
        continue;
      }
      // Held already: merge the subject columns (an upsert's merge would hide whether it was new).
      const subjectId = str(row.subject_id) ?? source.subjectId;
      const subjectName = str(row.subject_name);
      await trx('pulled_track_points')
        .where({ source_id: str(row.source_id) ?? source.sourceId, recorded_ms: at })
        .andWhere((q) => q.whereNot('subject_id', subjectId).orWhereRaw('subject_name IS NOT ?', [subjectName]))
        .update({ subject_id: subjectId, subject_name: subjectName });
    }
    if (newestText !== null) {
      await trx('pulled_track_sources')
        .insert({ subject_id: source.subjectId, source_id: source.sourceId, newest_recorded_at: newestText, newest_ms: newest, synced_at: new Date(now()).toISOString() })
        .onConflict(['subject_id', 'source_id'])
        .merge();
    }
  });
  return { added, newest };
}
