/**
 * Issue 28: the server reads of the schema lifecycle that the CLI needs: an event type's current
 * revision (detail with its schema), usage summaries (batched, ≤ USAGE_BATCH values a request),
 * and a type's draft. A 404 is an answer here (no such type, route not offered, no draft), not an
 * error; anything else unexpected is a `ClientFailure` with a hint.
 */
import type { UsageSummary } from '../../schema/compat/types.js';
import { header, type Transport, type TransportResponse } from '../http.js';
import { parseJsonBody, unexpectedResponse } from '../http-errors.js';
import { failure } from '../errors.js';

const EVENT_TYPES = '/api/v2.0/activity/eventtypes';
/** The server's bound on `?types=` (CONTRACT, issue 28). */
export const USAGE_BATCH = 200;

export interface RemoteEventType {
  id: string | null;
  value: string;
  /** The stored {json, ui} (raw: include_schema never expands choices). */
  schema: unknown;
  record: Record<string, unknown>;
}

type Rec = Record<string, unknown>;
const isObject = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Detail bodies are bare in this API; an enveloped one (`{data}`) is read as well. */
const unwrap = (body: unknown): unknown => (isObject(body) && isObject(body.data) && !('value' in body) ? body.data : body);

async function get(transport: Transport, url: string): Promise<TransportResponse> {
  return transport({ method: 'GET', url, headers: { accept: 'application/json' } });
}

/** The type by id or value as it stands now; null when the server has no such type. */
export async function fetchEventType(transport: Transport, server: string, key: string): Promise<RemoteEventType | null> {
  const what = `the event type "${key}"`;
  const response = await get(transport, `${server}${EVENT_TYPES}/${encodeURIComponent(key)}?include_schema=true&include_inactive=true`);
  if (response.status === 404) return null;
  if (response.status !== 200) throw unexpectedResponse(response, what, server);
  const record = unwrap(parseJsonBody<unknown>(response, what));
  if (!isObject(record) || typeof record.value !== 'string') throw failure('server', `the server sent ${what} without a value`, 'check that the server URL points at a fieldops server');
  return { id: typeof record.id === 'string' ? record.id : null, value: record.value, schema: record.schema ?? null, record };
}

export type UsageAnswer = { offered: false } | { offered: true; summaries: UsageSummary[]; etag: string | null; requests: number };

/**
 * Usage summaries of these values, one request per USAGE_BATCH values. A 404 on the first batch
 * means the server has no usage route (an older server): `{offered: false}`.
 */
export async function fetchUsageSummaries(transport: Transport, server: string, values: readonly string[]): Promise<UsageAnswer> {
  const unique = [...new Set(values)];
  const summaries: UsageSummary[] = [];
  let etag: string | null = null;
  let requests = 0;
  for (let i = 0; i < unique.length; i += USAGE_BATCH) {
    const batch = unique.slice(i, i + USAGE_BATCH);
    const response = await get(transport, `${server}${EVENT_TYPES}/usage?types=${batch.map(encodeURIComponent).join(',')}`);
    requests++;
    if (response.status === 404 && i === 0) return { offered: false };
    if (response.status !== 200) throw unexpectedResponse(response, 'the usage summaries', server);
    const body = parseJsonBody<{ data?: unknown }>(response, 'the usage summaries');
    if (!Array.isArray(body?.data)) throw failure('server', 'the server sent usage summaries that are not a list', 'the server may be older or newer than this fieldops');
    for (const summary of body.data) if (isSummary(summary)) summaries.push(summary);
    etag = unique.length <= USAGE_BATCH ? (header(response, 'etag') ?? null) : null;
  }
  return { offered: true, summaries, etag, requests };
}

function isSummary(value: unknown): value is UsageSummary {
  return isObject(value) && typeof value.event_type === 'string' && typeof value.events === 'number' && isObject(value.fields);
}

export interface RemoteDraft {
  schema: unknown;
  basedOnRevision: number | null;
}

/** The type's draft; null when it has none (404). */
export async function fetchDraft(transport: Transport, server: string, key: string): Promise<RemoteDraft | null> {
  const what = `the draft of "${key}"`;
  const response = await get(transport, `${server}${EVENT_TYPES}/${encodeURIComponent(key)}/draft`);
  if (response.status === 404) return null;
  if (response.status !== 200) throw unexpectedResponse(response, what, server);
  const body = parseJsonBody<{ data?: Rec }>(response, what);
  const data = isObject(body?.data) ? body.data : null;
  if (!data || !isObject(data.schema)) throw failure('server', `the server sent ${what} without a schema`, 'the server may be older or newer than this fieldops');
  return { schema: data.schema, basedOnRevision: typeof data.based_on_revision === 'number' ? data.based_on_revision : null };
}
