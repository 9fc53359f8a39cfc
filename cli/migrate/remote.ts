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
  if (response.status === 403) {
    throw failure(
      'permission',
      apply ? 'not allowed to convert event types' : 'not allowed to read the event types to migrate',
      apply
        ? 'converting (--apply) needs the permissions add_eventtype, change_eventtype and add_choice (a dry run needs view_eventtype): ask an administrator'
        : 'a dry run needs the view_eventtype permission: ask an administrator',
    );
  }
  // A refused apply (some type has errors: all or none) still carries the per-type results.
  if (response.status !== 200 && response.status !== 201 && response.status !== 400) throw unexpectedResponse(response, 'the migration', server);
  const body = parseJsonBody<unknown>(response, 'the migration results');
  const results = Array.isArray(body) ? body : ((body as { results?: unknown; data?: unknown }).results ?? (body as { data?: unknown }).data);
  if (!Array.isArray(results)) {
    if (response.status === 400) throw failure('input', `the server refused the migration: ${describeErrorBody(response) ?? 'bad request'}`, `check the values: the v1 event types are listed at ${server}/api/v1.0/activity/events/eventtypes (\`fieldops types list\` shows v2 types only)`);
    throw failure('server', 'the server answered the migration in an unexpected shape', 'tell the server administrator');
  }
  const applied = !Array.isArray(body) && (body as { applied?: unknown }).applied === true;
  return { status: response.status, applied, results: results as RemoteMigration[] };
}
