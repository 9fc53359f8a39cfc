/** `POST /api/v2.0/activity/eventtypes/migrate` (CONTRACT §5): the server converts its own v1 types. */
import { failure } from '../../sync/errors.js';
import { describeErrorBody, parseJsonBody, unexpectedResponse } from '../../sync/http-errors.js';
import type { Transport } from '../../sync/http.js';

export interface RemoteIssue {
  code?: string;
  message?: string;
  hints?: string[];
  pointer?: string;
  severity?: string;
  location?: { line: number; column: number };
}

export interface RemoteMigration {
  event_type: string;
  v2_schema: unknown;
  warnings: RemoteIssue[];
  errors: RemoteIssue[];
}

export async function migrateRemote(transport: Transport, server: string, eventTypes: string[], apply: boolean): Promise<{ status: number; applied: boolean; results: RemoteMigration[] }> {
  const response = await transport({
    method: 'POST',
    url: `${server}/api/v2.0/activity/eventtypes/migrate`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ event_types: eventTypes, dry_run: !apply }),
  });
  if (response.status === 404 && !describeErrorBody(response)?.toLowerCase().includes('event type')) {
    throw failure('server', `${server} does not offer event type migration (404)`, 'it may be an older server; migrate files offline with `fieldops migrate <files> --out DIR`');
  }
  // A refused apply (some type has errors: all or none) still carries the per-type results.
  if (response.status !== 200 && response.status !== 201 && response.status !== 400) throw unexpectedResponse(response, 'the migration', server);
  const body = parseJsonBody<unknown>(response, 'the migration results');
  const results = Array.isArray(body) ? body : ((body as { results?: unknown; data?: unknown }).results ?? (body as { data?: unknown }).data);
  if (!Array.isArray(results)) {
    if (response.status === 400) throw failure('input', `the server refused the migration: ${describeErrorBody(response) ?? 'bad request'}`, 'check the event type values (`fieldops types list --kind event`)');
    throw failure('server', 'the server answered the migration in an unexpected shape', 'tell the server administrator');
  }
  const applied = !Array.isArray(body) && (body as { applied?: unknown }).applied === true;
  return { status: response.status, applied, results: results as RemoteMigration[] };
}
