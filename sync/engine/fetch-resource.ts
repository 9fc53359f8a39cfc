/**
 * Conditional reads of one resource. With a checkpoint, the request carries its validators
 * (`If-None-Match`, and `If-Modified-Since` where the server offers Last-Modified); a 304 costs
 * no body. Nothing here writes: the result is handed to the store's single transaction.
 */
import { failure } from '../errors.js';
import { parseJsonBody, unexpectedResponse } from '../http-errors.js';
import type { Checkpoint, ItemResource, ResourceUpdate, Validators } from '../mirror/store.js';
import { header, type Transport, type TransportResponse } from '../http.js';
import { checkDocument, checkPage, checkRecords, type ResourceSpec } from './resources.js';

export interface FetchContext {
  transport: Transport;
  server: string;
  /** The resource's checkpoint when its validators may be used. */
  previous: Checkpoint | undefined;
}

export interface FetchResult {
  update: ResourceUpdate;
  /** Status of the (first) request: 200, 304, 403 or 404. */
  status: number;
  requests: number;
  bytes: number;
}

const MAX_PAGES = 1000;

export async function fetchResource(spec: ResourceSpec, ctx: FetchContext): Promise<FetchResult> {
  return spec.paged ? fetchPaged(spec, ctx) : fetchWhole(spec, ctx);
}

function conditionalHeaders(spec: ResourceSpec, validators: { etag: string | null; lastModified?: string | null } | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (spec.validators === 'both' && validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

const usable = (previous: Checkpoint | undefined) => (previous?.status === 'ok' && previous.etag ? previous : undefined);

function validatorsOf(response: TransportResponse, pages: string[] = []): Validators {
  return { etag: header(response, 'etag') ?? null, lastModified: header(response, 'last-modified') ?? null, pages };
}

/** 403 and (for optional resources) 404 are recorded outcomes, not failures. */
function unavailable(spec: ResourceSpec, response: TransportResponse, ctx: FetchContext): FetchResult | null {
  const base = { status: response.status, requests: 1, bytes: response.body.byteLength };
  if (response.status === 404 && spec.optional) return { ...base, update: { resource: spec.name, kind: 'unavailable', status: 'not_offered' } };
  if (response.status === 403) return { ...base, update: { resource: spec.name, kind: 'unavailable', status: 'forbidden' } };
  if (response.status === 200) return null;
  throw unexpectedResponse(response, spec.what, ctx.server);
}

async function fetchWhole(spec: ResourceSpec, ctx: FetchContext): Promise<FetchResult> {
  const previous = usable(ctx.previous);
  const response = await ctx.transport({ method: 'GET', url: ctx.server + spec.path, headers: conditionalHeaders(spec, previous) });
  if (response.status === 304 && previous) return { status: 304, requests: 1, bytes: response.body.byteLength, update: { resource: spec.name, kind: 'unchanged' } };
  const other = unavailable(spec, response, ctx);
  if (other) return other;
  const body = parseJsonBody<unknown>(response, spec.what);
  const result = { status: 200, requests: 1, bytes: response.body.byteLength };
  if (spec.name === 'trackedby') {
    return { ...result, update: { resource: 'trackedby', kind: 'document', document: checkDocument(body, spec.what), validators: validatorsOf(response) } };
  }
  return { ...result, update: { resource: spec.name as ItemResource, kind: 'items', items: checkRecords(body, spec.what), validators: validatorsOf(response) } };
}

/**
 * Every page is validated on its own. A 304 on the first page is trusted only when every later
 * page is also unchanged; otherwise the list is read again from the start. A list that changes
 * while it is being paged (count mismatch, an id twice) is read again once, then reported.
 */
async function fetchPaged(spec: ResourceSpec, ctx: FetchContext): Promise<FetchResult> {
  const previous = usable(ctx.previous);
  let requests = 0;
  let bytes = 0;
  const get = async (page: number, validators?: { etag: string | null; lastModified?: string | null }) => {
    const response = await ctx.transport({ method: 'GET', url: `${ctx.server}${spec.path}&page=${page}`, headers: conditionalHeaders(spec, validators) });
    requests++;
    bytes += response.body.byteLength;
    return response;
  };

  const first = await get(1, previous);
  if (first.status === 304 && previous) {
    let unchanged = true;
    for (const [index, etag] of previous.pages.entries()) {
      const response = await get(index + 2, { etag });
      if (response.status !== 304) {
        unchanged = false;
        break;
      }
    }
    if (unchanged) return { status: 304, requests, bytes, update: { resource: spec.name, kind: 'unchanged' } };
  } else {
    const other = unavailable(spec, first, ctx);
    if (other) return other;
  }

  for (let attempt = 1; ; attempt++) {
    const head = first.status === 200 && attempt === 1 ? first : await get(1);
    const other = unavailable(spec, head, ctx);
    if (other) return { ...other, requests, bytes };
    const firstPage = checkPage(parseJsonBody(head, spec.what), spec.what);
    const results = [...firstPage.results];
    const pages: string[] = [];
    let next = firstPage.next;
    for (let page = 2; next && page <= MAX_PAGES; page++) {
      const response = await get(page);
      if (response.status !== 200) throw unexpectedResponse(response, spec.what, ctx.server);
      const body = checkPage(parseJsonBody(response, spec.what), spec.what);
      results.push(...body.results);
      pages.push(header(response, 'etag') ?? '');
      next = body.next;
    }
    try {
      if (results.length !== firstPage.count) throw failure('server', `${spec.what} changed while being read (${results.length} of ${firstPage.count})`, 'run `fieldops sync` again');
      const items = checkRecords(results, spec.what);
      return { status: 200, requests, bytes, update: { resource: spec.name as ItemResource, kind: 'items', items, validators: validatorsOf(head, pages) } };
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
}
