/**
 * Pulling what the field needs offline, incrementally: patrols and events changed since the last
 * checkpoint (the first pull takes the last `RECENT_DAYS` days), and subjects with their last
 * positions. Each resource is written in one mirror transaction together with its checkpoint.
 *
 * The checkpoint is the newest `updated_at` seen minus `OVERLAP_MS`: the lists filter with
 * `updated_at >= updated_since`, and a write that committed late with an earlier `updated_at` is
 * still caught by the overlap; re-pulled rows are upserts, so the overlap costs only bytes.
 * Each record's `revision` (in the list bodies of a current server) is what an offline change is
 * based on. From an older server (no revisions), open patrols and unresolved events are read one
 * by one as well, for the ETag instead (up to MAX_DETAIL_READS per pull; a change of a record
 * with neither is refused when recorded: sync/outbox/bases.ts).
 */
import type { Knex } from 'knex';
import { unexpectedResponse, parseJsonBody } from '../http-errors.js';
import { header, type Transport } from '../http.js';
import { PULLED_COLUMNS, pulledRow, revisionOf, type PulledResource } from './pulled.js';

export const RECENT_DAYS = 30;
const OVERLAP_MS = 60_000;
const PAGE_SIZE = 500;
const MAX_PAGES = 200;
const MAX_DETAIL_READS = 500;

export interface PullReport {
  resource: PulledResource;
  /** Records on the wire (the overlap re-sends the newest ones). */
  received: number;
  /** Of those, new or different from what the mirror held. */
  changed: number;
  requests: number;
  since: string | null;
}

export interface PullOptions {
  transport: Transport;
  server: string;
  knex: Knex;
  now: () => number;
}

type Rec = Record<string, unknown>;

const SOURCES: Record<PulledResource, { path: string; what: string }> = {
  patrols: { path: '/api/v1.0/activity/patrols', what: 'the patrols' },
  events: { path: '/api/v1.0/activity/events', what: 'the events' },
  subjects: { path: '/api/v1.0/subjects', what: 'the subjects' },
};

export async function runPull(options: PullOptions): Promise<PullReport[]> {
  const reports: PullReport[] = [];
  for (const resource of ['patrols', 'events', 'subjects'] as const) reports.push(await pullOne(options, resource));
  return reports;
}

async function pullOne({ transport, server, knex, now }: PullOptions, resource: PulledResource): Promise<PullReport> {
  const source = SOURCES[resource];
  const checkpoint = await knex('pull_checkpoints').where({ resource }).first();
  const since: string = checkpoint?.updated_since ?? new Date(now() - RECENT_DAYS * 86_400_000).toISOString();
  const report: PullReport = { resource, received: 0, changed: 0, requests: 0, since };
  const records: Rec[] = [];
  const get = async (url: string) => {
    report.requests++;
    const response = await transport({ method: 'GET', url, headers: { accept: 'application/json' } });
    if (response.status !== 200) throw unexpectedResponse(response, source.what, server);
    return response;
  };
  if (resource === 'subjects') {
    const body = parseJsonBody<{ data: Rec[] }>(await get(`${server}${source.path}?updated_since=${encodeURIComponent(since)}`), source.what);
    records.push(...body.data);
  } else {
    let url: string | null = `${server}${source.path}?page_size=${PAGE_SIZE}&updated_since=${encodeURIComponent(since)}`;
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const body: { results: Rec[]; next: string | null } = parseJsonBody(await get(url), source.what);
      records.push(...body.results);
      url = body.next;
    }
  }
  // From an older server, what the field may change offline (an open patrol, an unresolved event)
  // is read one by one for its ETag; bounded, and the list is already only what changed since the
  // last pull. A record with a revision needs no such read.
  const etags = new Map<string, string | null>();
  const changeable = (resource === 'patrols' ? records.filter((r) => r.state === 'open') : resource === 'events' ? records.filter((r) => r.state !== 'resolved') : []).filter((r) => revisionOf(r) === null);
  for (const record of changeable.slice(0, MAX_DETAIL_READS)) {
    const response = await get(`${server}${source.path}/${record.id}`);
    etags.set(String(record.id), header(response, 'etag') ?? null);
    Object.assign(record, parseJsonBody<Rec>(response, source.what));
  }
  report.received = records.length;
  const newest = records.map((r) => Date.parse(PULLED_COLUMNS[resource](r).updated_at ?? '')).filter(Number.isFinite).reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
  const next = Number.isFinite(newest) ? new Date(Math.max(Date.parse(since), newest - OVERLAP_MS)).toISOString() : since;
  await knex.transaction(async (trx) => {
    for (const record of records) {
      const row = pulledRow(resource, String(record.id), record, etags.get(String(record.id)) ?? null, null);
      const held = await trx(`pulled_${resource}`).where({ id: row.id }).first('record', 'etag');
      if (held && held.record === row.record && held.etag === row.etag) continue;
      report.changed++;
      await trx(`pulled_${resource}`).insert(row).onConflict('id').merge();
    }
    await trx('pull_checkpoints').insert({ resource, updated_since: next, synced_at: new Date(now()).toISOString() }).onConflict('resource').merge();
  });
  return report;
}
