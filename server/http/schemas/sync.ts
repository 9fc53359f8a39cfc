/**
 * The sync feed's routes (a fieldops extension; docs/sync.md is the protocol, protocol/sync.ts
 * its types). The same shapes in every response profile.
 */
import { MAX_KEY_LENGTH } from '../../../protocol/scope-keys.js';
import { MAX_PAGE_CHANGES, MAX_RANGE_ENTRIES, MAX_RECORD_IDS, MAX_SCOPE_KEYS, RECORD_KINDS } from '../../../protocol/sync.js';
import { MAX_CURSOR_LENGTH } from '../../domain/sync/cursor.js';
import { AUTH_ERRORS, array, errorBody, errors, nullable, object, ok, str } from './common.js';
import { type JSONSchema, type ResponseSpec, type RouteSchema, named } from './types.js';

const tag = 'sync';
const kind: JSONSchema = { enum: [...RECORD_KINDS] };
const key = str(MAX_KEY_LENGTH);
const count: JSONSchema = { type: 'integer', minimum: 0 };

const change: JSONSchema = named('SyncChange', object({
  kind,
  id: str(64),
  op: { enum: ['put', 'delete', 'remove'], description: '`remove`: the record exists but left the keys asked for (or that may be seen).' },
  version: { ...count, description: 'The position of the record\'s latest change; a laptop ignores a change older than what it holds.' },
  etag: { type: ['string', 'null'], description: 'What a conditional update of the record sends as If-Match (null: none offered; patrols offer none, specification rule 8).' },
  revision: { type: ['integer', 'null'], minimum: 1, description: 'The record\'s revision (events, patrols, subjects): what an offline update names as its base (`Fieldops-Base-Revision`). Null for catalog kinds and for delete and remove.' },
  scopes: array(key),
  record: { type: ['object', 'null'], description: 'The record as its REST detail (catalogs: list with include_schema) endpoint shows it to the caller; null for delete and remove.' },
}));

const scopeSum: JSONSchema = named('SyncScopeSum', object({ key, count, checksum: { type: 'integer', minimum: 0, maximum: 4294967295 } }));
const checkpoint: JSONSchema = object({ cursor: str(), scopes: array(scopeSum) });
const denied: JSONSchema = object({ key: str(), reason: str() });

const feedPage: JSONSchema = named('SyncFeedPage', object({
  changes: array(change),
  cursor: str(),
  has_more: { type: 'boolean' },
  settling: { type: 'boolean' },
  checkpoint: { anyOf: [{ type: 'null' }, checkpoint] },
  granted: array(key),
  denied: array(denied),
  resume_points: {
    ...array(object({ index: count, cursor: str() })),
    description: 'Where a client may commit part of the page: after applying changes[0..index], `cursor` resumes right after changes[index]. Every floor(n/10) changes of a page of n, never at the last (none on a page of fewer than 10 changes).',
  },
}));

const position: JSONSchema = { anyOf: [{ type: 'null' }, object({ kind, id: str(64) })] };

const gone: ResponseSpec = {
  description: 'The cursor cannot be continued: `sync: [{code: "sync_cursor_expired"}]` (older than the retention) or `"sync_scopes_changed"` (issued to another user or profile; or the granted keys changed and `previous_scopes` is missing or not the set the cursor was made for; or keys were added while the cursor was still in its first snapshot). Start again with cursor null.',
  json: errorBody,
};
const preparing: ResponseSpec = {
  description: 'The database is unavailable, or the feed of this site is being prepared (`sync: [{code: "sync_preparing"}]`); retry after `Retry-After`.',
  json: errorBody,
  headers: { 'Retry-After': 'Seconds to wait.' },
};
const syncErrors = (...extra: number[]) => ({ ...errors(400, ...AUTH_ERRORS, ...extra), 503: preparing });

export const syncSchemas: Record<'changes' | 'ranges' | 'records' | 'explain', RouteSchema> = {
  changes: {
    summary: 'Changes of the scopes asked for, in commit order, from a cursor (fieldops extension)',
    description: 'Cursor null starts with a snapshot of the current state, then follows the change log. Pages are keyset (never offset), at most `limit` changes or about 1 MiB. The last page of a catch-up carries a `checkpoint` (count and checksum per granted key) when no write was committing, else `settling: true`. A cursor is bound to who reads (another user or profile: 410) and to the granted key set; a changed key set (day keys moving with the date, a newly visible subject group, a revoked permission) is continued without a new snapshot when `previous_scopes` names the set the cursor was made for.',
    tags: [tag],
    body: {
      kind: 'json',
      schema: object(
        {
          cursor: nullable(str(MAX_CURSOR_LENGTH)),
          scopes: array(key, { maxItems: MAX_SCOPE_KEYS }),
          limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_CHANGES, 'x-error-codes': { minimum: 'out_of_range', maximum: 'out_of_range' } },
          previous_scopes: {
            ...array(key, { maxItems: MAX_SCOPE_KEYS }),
            description: 'The `granted` keys of the page the cursor came from. When the keys granted now differ, the cursor is continued only if these are the keys it was made for (else 410 `sync_scopes_changed`): dropped keys are no longer listed in `granted` (the laptop drops rows no granted key justifies); added keys are served as a snapshot of their records, then the log goes on from the cursor.',
          },
        },
        ['cursor', 'scopes'],
      ),
    },
    responses: { 200: ok(feedPage), ...syncErrors(413, 415), 410: gone },
  },
  ranges: {
    summary: 'The ids and versions of one granted scope key, keyset by (kind, id) (repair)',
    tags: [tag],
    body: {
      kind: 'json',
      schema: object({ scope: key, after: position, limit: { type: 'integer', minimum: 1, maximum: MAX_RANGE_ENTRIES, 'x-error-codes': { minimum: 'out_of_range', maximum: 'out_of_range' } } }, ['scope', 'after']),
    },
    responses: {
      200: ok(object({ entries: array(object({ kind, id: str(64), version: count })), has_more: { type: 'boolean' }, settling: { type: 'boolean' } })),
      ...syncErrors(413, 415),
    },
  },
  records: {
    summary: 'Current records by id, as put changes; gone or not visible ones as delete (repair)',
    tags: [tag],
    body: { kind: 'json', schema: object({ kind, ids: array(str(64), { maxItems: MAX_RECORD_IDS }) }) },
    responses: { 200: ok(object({ changes: array(change) })), ...syncErrors(413, 415) },
  },
  explain: {
    summary: 'The server\'s count for a scope key, or why a record is or is not served',
    description: '`scope=<key>`: whether it is granted, and its count and checksum now. `id=<uuid>&kind=<kind>`: the keys the record is in, which of them the caller may read, and why it is in or out.',
    tags: [tag],
    query: { type: 'object', properties: { scope: key, id: str(64), kind } },
    responses: {
      200: ok(object(
        {
          scope: object({ key, granted: { type: 'boolean' }, reason: nullable(str()), count: nullable(count), checksum: nullable(count), settling: { type: 'boolean' } }),
          record: object({
            kind,
            id: str(),
            version: nullable(count),
            keys: array(object({ key, granted: { type: 'boolean' }, reason: nullable(str()) })),
            served: { type: 'boolean' },
            why: str(),
          }),
        },
        [],
      )),
      ...syncErrors(),
    },
  },
};
