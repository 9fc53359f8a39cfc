/**
 * The sync feed's wire (docs/sync.md is its specification). Shared by the server and the CLI;
 * imports nothing of ours.
 *
 * A laptop asks for scope keys (protocol/scope-keys.ts); the server intersects them with what
 * the user may see and answers pages of changes in the server's commit order. A first request
 * (`cursor: null`) is answered from the current state (a snapshot, keyset by kind and id), then
 * from the change log from the point the snapshot began. Every change carries the whole current
 * record, so nothing needs a second read.
 */

/** Record kinds on the feed. Catalog kinds carry the catalog item as its list endpoint shows it. */
export const RECORD_KINDS = ['event', 'patrol', 'subject', 'patrol_type', 'event_type', 'event_category', 'choice'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/**
 * `put`: the record now is as `record` says. `delete`: it is gone on the server. `remove`: it
 * still exists but left what this laptop may or asked to see (the laptop drops it).
 */
export type ChangeOp = 'put' | 'delete' | 'remove';

export interface Change {
  kind: RecordKind;
  id: string;
  op: ChangeOp;
  /**
   * The record's version: the position of its latest change in the log. Increases with every
   * change of one record; a laptop ignores a change older than what it holds.
   */
  version: number;
  /**
   * What a conditional update of this record sends as If-Match (null: none offered). Patrols
   * offer none (specification rule 8): their updates name `revision` as their base instead.
   */
  etag: string | null;
  /**
   * The record's revision (issue 26 §2): moves with every change of an event, patrol, segment
   * or subject; what an offline update names as its base (`Fieldops-Base-Revision`, a push
   * entry's `base`). Null for catalog kinds and for delete and remove.
   */
  revision: number | null;
  /** The requested-and-granted scope keys the record is in (empty for delete and remove). */
  scopes: string[];
  /** The record as its detail endpoint shows it; null for delete and remove. */
  record: Record<string, unknown> | null;
}

/** Count and checksum (protocol/checksum.ts) of one scope's records at the checkpoint. */
export interface ScopeSum {
  key: string;
  count: number;
  checksum: number;
}

export interface Checkpoint {
  /** The cursor the sums are true at (the page's own cursor). */
  cursor: string;
  scopes: ScopeSum[];
}

export interface FeedRequest {
  /** null: start (a snapshot of the current state). Otherwise a cursor the server returned. */
  cursor: string | null;
  /** Scope keys (at most MAX_SCOPE_KEYS), or patterns the server expands (`su:*`, `cat:*`). */
  scopes: string[];
  /** Changes per page, at most MAX_PAGE_CHANGES (default DEFAULT_PAGE_CHANGES). */
  limit?: number;
  /**
   * The `granted` keys of the page `cursor` came from (at most MAX_SCOPE_KEYS). A cursor is made
   * for one granted key set; when the keys granted now differ (the date moved the day keys, a
   * subject group became visible, a permission was revoked, `scopes` changed), the server
   * continues the cursor only if these are the keys it was made for, else answers 410
   * `sync_scopes_changed`. Keys dropped cost nothing: the next page's `granted` no longer lists
   * them and the laptop drops every row no granted key justifies. Keys added are served as a
   * snapshot of their records only, then the log goes on from where the cursor was (a cursor
   * still in its first snapshot cannot take keys on: 410). Sending them always is allowed; they
   * are read only when the set changed.
   */
  previous_scopes?: string[];
}

export interface DeniedScope {
  key: string;
  reason: string;
}

export interface FeedPage {
  changes: Change[];
  /** Pass back as the next request's cursor (opaque). */
  cursor: string;
  /** More is waiting now: ask again at once. */
  has_more: boolean;
  /**
   * PostgreSQL only: writes are committing, so the counts cannot be stated exactly yet
   * (checkpoint is null); ask again shortly.
   */
  settling: boolean;
  /** On the last page of a catch-up at a quiet moment: what the laptop must now hold. */
  checkpoint: Checkpoint | null;
  /** The requested keys (patterns expanded) the user may see. */
  granted: string[];
  denied: DeniedScope[];
  /**
   * Where a client may commit part of the page (docs/sync.md §8): after applying `changes[0]` to
   * `changes[index]`, `cursor` resumes right after `changes[index]`. Increasing indexes, every
   * floor(n / 10) of a page of n changes (none on a page of fewer than 10; absent from an older
   * server). A client that commits at them re-fetches at most a tenth of a page after a kill.
   */
  resume_points?: ResumePoint[];
}

export interface ResumePoint {
  index: number;
  cursor: string;
}

/** `POST …/sync/ranges`: the ids and versions of one scope, keyset by (kind, id), for repair. */
export interface RangesRequest {
  scope: string;
  after: { kind: RecordKind; id: string } | null;
  limit?: number;
}

export interface RangeEntry {
  kind: RecordKind;
  id: string;
  version: number;
}

export interface RangesPage {
  entries: RangeEntry[];
  has_more: boolean;
  /** True when writes were committing: the versions may already be behind; try again. */
  settling: boolean;
}

/** `POST …/sync/records`: current records by id (answered as put changes; gone ones as delete). */
export interface RecordsRequest {
  kind: RecordKind;
  ids: string[];
}

export interface RecordsPage {
  changes: Change[];
}

/** The contract error codes of the feed (in the contract's error body). */
export const SYNC_ERRORS = {
  cursorExpired: 'sync_cursor_expired',
  scopesChanged: 'sync_scopes_changed',
  preparing: 'sync_preparing',
} as const;

export const SYNC_BASE_PATH = '/api/fieldops/v1/sync';
export const MAX_SCOPE_KEYS = 400;
export const MAX_PAGE_CHANGES = 1000;
export const DEFAULT_PAGE_CHANGES = 500;
export const MAX_RANGE_ENTRIES = 5000;
export const MAX_RECORD_IDS = 500;
