/**
 * The feed's four requests over the injected Transport, with shape checks of every answer (a
 * server that answers 200 with something else must not write into the mirror) and failures a
 * user can act on. The feed's requests are reads, so they are repeated after a network failure
 * or a 5xx/429 (bounded, with backoff) even though they are POSTs; the contract's 410 and 503
 * `sync_preparing` come back as values, not failures: the loop decides what they mean.
 */
import { RECORD_KINDS, SYNC_BASE_PATH, SYNC_ERRORS, type Change, type FeedPage, type FeedRequest, type RangesPage, type RangesRequest, type RecordKind, type RecordsPage } from '../../protocol/sync.js';
import { failure } from '../errors.js';
import { describeErrorBody, parseJsonBody, unexpectedResponse } from '../http-errors.js';
import { bodyText, TransportError, type Transport, type TransportResponse } from '../http.js';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { sleep } from '../retry.js';

export interface FeedClientOptions {
  transport: Transport;
  server: string;
  /** Tries per request, the first included. */
  attempts?: number;
  baseDelayMs?: number;
  wait?: (ms: number) => Promise<void>;
}

/** Answers of `changes` that are not a page: the loop resets, falls back or retries. */
export type ChangesAnswer =
  | { kind: 'page'; page: FeedPage }
  | { kind: 'no_feed'; status: number }
  | { kind: 'preparing'; retryAfterMs: number | null }
  | { kind: 'gone'; reason: 'expired' | 'scopes_changed'; detail: string | null };

/** The explain answer (server/http/schemas/sync.ts): `scope` for a key, `record` for an id. */
export interface ExplainAnswer {
  scope?: { key: string; granted: boolean; reason: string | null; count: number | null; checksum: number | null; settling?: boolean };
  record?: { kind: RecordKind; id: string; version: number | null; keys: Array<{ key: string; granted: boolean; reason: string | null }>; served: boolean; why: string };
}

const RETRIED = new Set([429, 500, 502, 504]);

export class FeedClient {
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(private readonly options: FeedClientOptions) {
    this.attempts = Math.max(1, options.attempts ?? 4);
    this.baseDelayMs = options.baseDelayMs ?? 250;
    this.wait = options.wait ?? ((ms) => sleep(ms));
  }

  private url(path: string): string {
    return `${this.options.server}${SYNC_BASE_PATH}${path}`;
  }

  private async send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<TransportResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'gzip, br' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await this.options.transport({ method, url: this.url(path), headers, body: body === undefined ? undefined : JSON.stringify(body) });
        if (!RETRIED.has(response.status) || attempt >= this.attempts) return decoded(response);
      } catch (error) {
        if (!(error instanceof TransportError) || error.permanent || attempt >= this.attempts) throw error;
      }
      await this.wait(this.baseDelayMs * 2 ** (attempt - 1));
    }
  }

  async changes(request: FeedRequest): Promise<ChangesAnswer> {
    const response = await this.send('POST', '/changes', request);
    if (response.status === 200) return { kind: 'page', page: checkFeedPage(parseJsonBody(response, 'the change feed')) };
    const code = errorCode(response);
    // A 404 (or 405/501) without the feed's own codes: a server from before the feed.
    if (response.status === 404 || response.status === 405 || response.status === 501) return { kind: 'no_feed', status: response.status };
    if (response.status === 503 && code === SYNC_ERRORS.preparing) {
      const seconds = Number(response.headers['retry-after']);
      return { kind: 'preparing', retryAfterMs: Number.isFinite(seconds) ? seconds * 1000 : null };
    }
    if (response.status === 410) return { kind: 'gone', reason: code === SYNC_ERRORS.scopesChanged ? 'scopes_changed' : 'expired', detail: describeErrorBody(response) ?? null };
    throw this.failed(response, 'the change feed');
  }

  async ranges(request: RangesRequest): Promise<RangesPage> {
    const response = await this.send('POST', '/ranges', request);
    if (response.status !== 200) throw this.failed(response, 'the scope ranges');
    return checkRangesPage(parseJsonBody(response, 'the scope ranges'));
  }

  async records(kind: RecordKind, ids: string[]): Promise<Change[]> {
    const response = await this.send('POST', '/records', { kind, ids });
    if (response.status !== 200) throw this.failed(response, 'the records');
    const body = parseJsonBody<RecordsPage>(response, 'the records');
    if (!body || !Array.isArray(body.changes)) throw shape('the records', 'no `changes` list');
    return body.changes.map((c) => checkChange(c, 'the records'));
  }

  /** GET …/explain: the server's count for one key now, or its account of one record. */
  async explain(params: { scope: string } | { id: string; kind: RecordKind }): Promise<ExplainAnswer> {
    const query = new URLSearchParams(params as Record<string, string>);
    const response = await this.send('GET', `/explain?${query.toString()}`);
    if (response.status !== 200) throw this.failed(response, 'the scope explanation');
    const body = parseJsonBody<ExplainAnswer>(response, 'the scope explanation');
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw shape('the scope explanation', 'not an object');
    return body;
  }

  private failed(response: TransportResponse, what: string) {
    if (response.status === 400) {
      return failure('server', `the server refused the request for ${what}: ${describeErrorBody(response) ?? 'HTTP 400'}`, 'check the --scope values; if they are right, the server may be older or newer than this fieldops');
    }
    return unexpectedResponse(response, what, this.options.server);
  }
}

/** A page decoded is at most 1 MiB of JSON (the server's cap); more is refused, not inflated. */
const MAX_DECODED_BYTES = 64 * 1024 * 1024;

/**
 * The transport hands bodies over as received: a compressed one (we ask for gzip and br) is
 * inflated here, bounded, so that a hostile answer cannot fill the memory.
 */
function decoded(response: TransportResponse): TransportResponse {
  const coding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return response;
  try {
    const options = { maxOutputLength: MAX_DECODED_BYTES };
    const body = coding === 'gzip' || coding === 'x-gzip' ? gunzipSync(response.body, options) : coding === 'br' ? brotliDecompressSync(response.body, options) : null;
    if (!body) throw new Error(coding);
    return { ...response, body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) };
  } catch {
    throw failure('server', `the server sent a body in the coding "${coding.slice(0, 20)}" that could not be decoded`, 'try again; if it persists, tell the server administrator');
  }
}

/** The contract error body's machine code for the feed (in a field issue or in the detail). */
function errorCode(response: TransportResponse): string | null {
  const text = bodyText(response);
  for (const code of Object.values(SYNC_ERRORS)) if (text.includes(code)) return code;
  return null;
}

const shape = (what: string, why: string) => failure('server', `the server sent ${what} in an unexpected shape (${why})`, 'check that the server URL points at a fieldops server of this version');

const isString = (v: unknown): v is string => typeof v === 'string';
const isVersion = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function checkChange(value: unknown, what: string): Change {
  const c = value as Partial<Change> | null;
  if (!c || typeof c !== 'object') throw shape(what, 'a change is not an object');
  if (!RECORD_KINDS.includes(c.kind as RecordKind)) throw shape(what, `unknown kind ${JSON.stringify(c.kind)?.slice(0, 40)}`);
  if (!isString(c.id) || c.id.length === 0 || c.id.length > 64) throw shape(what, 'a change without a valid id');
  if (c.op !== 'put' && c.op !== 'delete' && c.op !== 'remove') throw shape(what, `unknown op ${JSON.stringify(c.op)?.slice(0, 20)}`);
  if (!isVersion(c.version)) throw shape(what, `change ${c.id} has no version`);
  if (!Array.isArray(c.scopes) || !c.scopes.every(isString)) throw shape(what, `change ${c.id} has no scope list`);
  if (c.op === 'put' && (!c.record || typeof c.record !== 'object' || Array.isArray(c.record))) throw shape(what, `put ${c.id} carries no record`);
  return { kind: c.kind as RecordKind, id: c.id, op: c.op, version: c.version, etag: isString(c.etag) ? c.etag : null, revision: isVersion(c.revision) ? c.revision : null, scopes: c.scopes, record: c.op === 'put' ? c.record! : null };
}

export function checkFeedPage(value: unknown): FeedPage {
  const p = value as Partial<FeedPage> | null;
  const what = 'the change feed';
  if (!p || typeof p !== 'object' || !Array.isArray(p.changes)) throw shape(what, 'no `changes` list');
  if (!isString(p.cursor) || p.cursor.length === 0) throw shape(what, 'no cursor');
  if (typeof p.has_more !== 'boolean') throw shape(what, 'no `has_more`');
  let checkpoint: FeedPage['checkpoint'] = null;
  if (p.checkpoint) {
    const scopes = (p.checkpoint as { scopes?: unknown }).scopes;
    if (!Array.isArray(scopes) || !scopes.every((s) => s && isString(s.key) && isVersion(s.count) && isVersion(s.checksum))) throw shape(what, 'a checkpoint without counts');
    checkpoint = { cursor: isString(p.checkpoint.cursor) ? p.checkpoint.cursor : p.cursor, scopes };
  }
  return {
    changes: p.changes.map((c) => checkChange(c, what)),
    cursor: p.cursor,
    has_more: p.has_more,
    settling: p.settling === true,
    checkpoint,
    granted: Array.isArray(p.granted) ? p.granted.filter(isString) : [],
    denied: Array.isArray(p.denied) ? p.denied.filter((d) => d && isString(d.key)).map((d) => ({ key: d.key, reason: isString(d.reason) ? d.reason : '' })) : [],
    // Malformed points are left out (the page is then committed in fewer segments, never wrongly).
    resume_points: Array.isArray(p.resume_points) ? p.resume_points.filter((r) => r && Number.isInteger(r.index) && isString(r.cursor) && r.cursor.length > 0).map((r) => ({ index: r.index, cursor: r.cursor })) : [],
  };
}

function checkRangesPage(value: unknown): RangesPage {
  const p = value as Partial<RangesPage> | null;
  const what = 'the scope ranges';
  if (!p || !Array.isArray(p.entries) || typeof p.has_more !== 'boolean') throw shape(what, 'no `entries` list');
  for (const e of p.entries) {
    if (!e || !RECORD_KINDS.includes(e.kind) || !isString(e.id) || !isVersion(e.version)) throw shape(what, 'an entry without kind, id and version');
  }
  return { entries: p.entries, has_more: p.has_more, settling: p.settling === true };
}
