/**
 * What `fieldops sync` mirrors: one entry per server resource, with the request that reads it
 * whole, the validators the server offers for it, and a shape check of its body (a server that
 * answers 200 with something else must not overwrite a good mirror).
 */
import { failure } from '../errors.js';
import type { ApiRecord, ResourceName } from '../mirror/store.js';

export interface ResourceSpec {
  name: ResourceName;
  /** For messages: "the patrol types". */
  what: string;
  path: string;
  /** `etag`: If-None-Match only (tracked-by); `both`: also If-Modified-Since. */
  validators: 'etag' | 'both';
  /** `{count, next, results}` pages, each with its own validators. */
  paged: boolean;
  /** A 404 means "this server does not offer it" (recorded, not a failure). */
  optional: boolean;
}

export const RESOURCE_SPECS: readonly ResourceSpec[] = [
  { name: 'patrol_types', what: 'the patrol types', path: '/api/v1.0/activity/patrols/types?include_schema=true&include_inactive=true', validators: 'both', paged: false, optional: false },
  { name: 'trackedby', what: 'the tracked-by schema', path: '/api/v1.0/activity/patrols/trackedby', validators: 'etag', paged: false, optional: false },
  // Newer than the rest of the API: an older server answers 404.
  { name: 'event_types', what: 'the v2 event types', path: '/api/v2.0/activity/eventtypes?include_schema=true&include_inactive=true', validators: 'both', paged: false, optional: true },
  { name: 'choices', what: 'the choices', path: '/api/v2.0/choices?include_inactive=true&page_size=4000', validators: 'both', paged: true, optional: false },
];

/** A list body must be an array of records with a string `id` and `value`, ids unique. */
export function checkRecords(body: unknown, what: string): ApiRecord[] {
  if (!Array.isArray(body)) throw failure('server', `the server sent ${what} in an unexpected shape (not a list)`, 'check that the server URL points at a fieldops server');
  const ids = new Set<string>();
  for (const record of body) {
    if (!record || typeof record !== 'object' || typeof record.id !== 'string' || typeof record.value !== 'string') {
      throw failure('server', `the server sent ${what} with a record lacking \`id\` or \`value\``, 'tell the server administrator');
    }
    if (ids.has(record.id)) throw failure('server', `the server sent ${what} with the id ${record.id} twice`, 'try again; if it persists, tell the server administrator');
    ids.add(record.id);
  }
  return body as ApiRecord[];
}

export interface Page {
  count: number;
  next: string | null;
  results: unknown[];
}

export function checkPage(body: unknown, what: string): Page {
  const page = body as Partial<Page> | null;
  if (!page || typeof page.count !== 'number' || !Array.isArray(page.results)) {
    throw failure('server', `the server sent ${what} in an unexpected shape (not a page)`, 'check that the server URL points at a fieldops server');
  }
  return { count: page.count, next: typeof page.next === 'string' ? page.next : null, results: page.results };
}

export function checkDocument(body: unknown, what: string): object {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw failure('server', `the server sent ${what} in an unexpected shape`, 'tell the server administrator');
  return body;
}
