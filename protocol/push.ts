/**
 * The batched push's wire: `POST /api/fieldops/v1/sync/push` (issue 26 §4; docs/sync.md
 * "Batched push"). Shared by the server and the CLI; imports nothing of ours.
 *
 * A laptop sends many outbox entries in one request. The server runs them in order, each in its
 * own transaction under its own idempotency key (one refusal never undoes another), and answers
 * one outcome per entry, in the same order.
 */

/** One per single route an entry stands for. */
export const PUSH_OPS = [
  'event.create', 'event.update', 'event.delete', 'event.note', 'event.file',
  'patrol.create', 'patrol.update', 'patrol.note', 'patrol.file',
  'segment.update', 'conflict.resolve',
] as const;
export type PushOp = (typeof PUSH_OPS)[number];

/**
 * What an update was based on: the record's revision as the laptop last saw it, or the earlier
 * entry (by key, same principal) whose answer it follows. An entry based on `{entry}` is
 * resolved in batch order from that key's stored outcome; unknown → `failed_dependency`, code
 * `base_entry_unknown`.
 */
export type PushBase = { revision: number } | { entry: string };

export interface PushEntry {
  /** The outbox entry's id: its Idempotency-Key. 1–255 visible ASCII characters. */
  key: string;
  op: PushOp;
  /** The record the entry changes (updates, deletes, notes, files, resolves); absent on creates. */
  id?: string;
  /** For `segment.update`: the segment; `id` is then its patrol (optional). */
  segment?: string;
  base?: PushBase;
  /** Keys that must have succeeded (in this batch or before) for this entry to run. */
  after?: string[];
  /** The user who recorded the entry; another than the acting user → rejected 403 `recorded_by_other_user`. */
  recorded_by?: string;
  /** What the single route would take as its JSON body (a file: `{id, upload, comment}`). */
  body: unknown;
}

export interface PushRequest {
  entries: PushEntry[];
}

export const PUSH_STATUSES = ['applied', 'merged', 'conflict', 'replayed', 'rejected', 'failed_dependency', 'deferred'] as const;
export type PushStatus = (typeof PUSH_STATUSES)[number];

/** One field the same entry and the server both changed since the entry's base. */
export interface PushConflict {
  id: string;
  /** `state`, `event_details.species`, `segments.<id>.end_time` (protocol/merge-fields.ts). */
  field: string;
  base: unknown;
  mine: unknown;
  theirs: unknown;
  status: 'open' | 'settled';
  /** The tenant's policy that settled it (`server_wins`, `last_writer_wins`), or `hold`. */
  policy: ConflictPolicy;
  /** Which value stands: absent while open. */
  settled_by?: 'policy' | 'mine' | 'theirs';
}

export const CONFLICT_POLICIES = ['hold', 'server_wins', 'last_writer_wins'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

export interface PushOutcome {
  key: string;
  status: PushStatus;
  /** What the single route would have answered (201, 200, 204, 4xx). */
  http_status: number;
  kind?: 'event' | 'patrol' | 'segment' | 'subject' | 'conflict';
  id?: string;
  /** The record's revision after the entry (what a following edit is based on). */
  revision?: number;
  /** Fields the server changed since the base that this entry did not touch, kept. */
  merged_fields?: string[];
  conflicts?: PushConflict[];
  /** For a file entry: the stored file's sha256 (the laptop then removes its staged copy). */
  sha256?: string;
  /** The contract's error body, for `rejected` and `failed_dependency`. */
  error?: { code: string; message: string; field?: string; hint?: string };
  /** The record as the single route would have answered it (creates and updates), fieldops shape. */
  record?: Record<string, unknown>;
}

export interface PushResponse {
  outcomes: PushOutcome[];
}

/** Limits a batch is held to (the server advertises them in a 429's hint and docs/sync.md). */
export const MAX_PUSH_ENTRIES = 500;
export const DEFAULT_PUSH_BODY_BYTES = 4 * 1024 * 1024;

/** Header of a single-route update naming the revision it was based on (asks for a merge). */
export const BASE_REVISION_HEADER = 'fieldops-base-revision';
/** Header every fieldops CLI request carries: the mirror's client id (`[A-Za-z0-9._-]{1,64}`). */
export const CLIENT_ID_HEADER = 'fieldops-client-id';
