/**
 * The batched push's route (a fieldops extension; protocol/push.ts is the wire, docs/sync.md
 * "Batched push" the protocol). The same shapes in every response profile.
 *
 * An entry's `body` is not described here: it is what the entry's single route takes, and that
 * route's service checks it (the entry is rejected with the single route's error).
 */
import { MAX_PUSH_ENTRIES, PUSH_OPS, PUSH_STATUSES } from '../../../protocol/push.js';
import { AUTH_ERRORS, array, errorBody, errors, object, ok, str } from './common.js';
import { type JSONSchema, type RouteSchema, named } from './types.js';

const tag = 'sync';
/** An Idempotency-Key: 1–255 visible ASCII characters. */
const entryKey: JSONSchema = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', 'x-error-code': 'invalid_key' };
const recordId = str(64, { minLength: 1 });

const base: JSONSchema = {
  oneOf: [
    object({ revision: { type: 'integer', minimum: 0 } }),
    object({ entry: entryKey }),
  ],
  description: 'What an update was based on: the revision the laptop last saw, or the earlier entry (by key) it follows.',
  'x-error-code': 'invalid_base',
};

const entry: JSONSchema = named('PushEntry', object(
  {
    key: { ...entryKey, description: 'The outbox entry\'s id: its Idempotency-Key (same principal as single routes).' },
    op: { enum: [...PUSH_OPS], description: 'The single route the entry stands for.' },
    id: { ...recordId, description: 'The record the entry changes (updates, deletes, notes, files; the conflict to resolve); absent on creates.' },
    segment: { ...recordId, description: '`segment.update`: the segment (`id` is then its patrol, optional).' },
    base,
    after: { ...array(entryKey, { maxItems: MAX_PUSH_ENTRIES }), description: 'Keys that must have succeeded first (in this batch or before), else `failed_dependency`.' },
    recorded_by: { ...str(64), description: 'The user who recorded the entry; another than the caller → rejected 403 `recorded_by_other_user`.' },
    body: { description: 'What the single route takes as its JSON body (a file: `{id, upload, comment}`).' },
  },
  ['key', 'op'],
));

const conflict: JSONSchema = object(
  {
    id: str(), field: str(), base: {}, mine: {}, theirs: {}, status: { enum: ['open', 'settled'] },
    policy: { enum: ['hold', 'server_wins', 'last_writer_wins'] }, settled_by: { enum: ['policy', 'mine', 'theirs'] },
  },
  ['id', 'field', 'status', 'policy'],
);

const outcome: JSONSchema = named('PushOutcome', object(
  {
    key: str(),
    status: { enum: [...PUSH_STATUSES] },
    http_status: { type: 'integer', description: 'What the single route would have answered.' },
    kind: { enum: ['event', 'patrol', 'segment', 'subject', 'conflict'] },
    id: str(),
    revision: { type: 'integer', description: 'The record\'s revision after the entry: what a following edit is based on.' },
    merged_fields: array(str()),
    conflicts: array(conflict),
    sha256: str(64),
    error: object({ code: str(), message: str(), field: str(), hint: str() }, ['code', 'message']),
    record: { type: 'object', description: 'The record as the single route answers it (fieldops shape).' },
  },
  ['key', 'status', 'http_status'],
));

export const pushBody: JSONSchema = object({ entries: { ...array(entry), description: `At most ${MAX_PUSH_ENTRIES} entries (more: 429 \`push_batch_too_large\`, without Retry-After).` } }, ['entries']);

export const pushSchemas: Record<'push', RouteSchema> = {
  push: {
    summary: 'Push many outbox entries in one request (fieldops extension)',
    description:
      'Entries run in order, each as its single route would run it, under its own Idempotency-Key (the entry\'s `key`) and in its own transaction: one refusal never undoes another. ' +
      'The answer has one outcome per entry, in order: `applied`, `merged`, `conflict`, `replayed` (a key stored before: its stored outcome, not run again), `rejected` (with the single route\'s error), ' +
      '`failed_dependency` (an `after` key or a base entry that has not succeeded) or `deferred` (the batch ran out of time: send it again). ' +
      `Limits: a body over the push body limit is 413; more than ${MAX_PUSH_ENTRIES} entries is 429 without Retry-After (this batch can never fit: split it); ` +
      'a second batch of the same caller while one runs, or more batches than the server runs at once, is 429 with Retry-After. Nothing is queued.',
    tags: [tag],
    body: { kind: 'json', schema: pushBody },
    responses: {
      200: ok(object({ outcomes: array(outcome) })),
      ...errors(400, ...AUTH_ERRORS, 413, 415),
      429: { description: 'Too many entries (`push_batch_too_large` under `entries`, no Retry-After: split the batch), or busy (`push_busy`, with Retry-After in seconds).', json: errorBody, headers: { 'Retry-After': 'Seconds to wait, when waiting helps.' } },
    },
  },
};
