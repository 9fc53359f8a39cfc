/**
 * The read side of the change log (the feed, docs/sync.md), as the domain needs it. One Knex
 * implementation: server/db/sync/feed-read.ts. Every read is bound to the tenant, and each
 * method that returns several facts reads them in one snapshot of the database (PostgreSQL: one
 * REPEATABLE READ READ ONLY transaction; SQLite: one deferred read transaction), so that what it
 * returns is true at one moment.
 */
import type { RecordKind, ScopeSum } from '../../../protocol/sync.js';
import type { LogPosition } from './cursor.js';
import type { EventRecord } from '../events/model.js';
import type { Patrol } from '../patrols/model.js';

export interface TenantFeedState {
  backfillDone: boolean;
  /** Cursors below this were pruned by the retention (410 sync_cursor_expired). */
  pruned: LogPosition;
}

/** A record as the snapshot phase or a lookup finds it: its version and the keys it is in. */
export interface MemberEntry {
  kind: RecordKind;
  id: string;
  version: number;
  /** The keys it is in (the ones asked about, when a set of keys was given). */
  keys: string[];
}

export interface LogRow {
  txid: number;
  position: number;
  kind: RecordKind;
  id: string;
  op: 'put' | 'delete';
  scopes: string[];
  oldScopes: string[];
}

export interface LogPage {
  rows: LogRow[];
  /** True when fewer rows than asked for were there: the log is read to the end (below H). */
  exhausted: boolean;
  pruned: LogPosition;
  /**
   * The current state, in the same snapshot as `rows`, of each record of a row that touches the
   * requested keys: its latest version and the requested keys it is in now (absent: in none).
   */
  current: Map<string, { version: number; keys: string[] }>;
  /** The latest version of each of those records (its last visible change), in the same snapshot. */
  latest: Map<string, number>;
  /**
   * Only when `exhausted`: whether nothing of the tenant committed at or above the horizon is
   * visible (always true on SQLite), and the sums of the requested keys in the same snapshot.
   */
  quiet: boolean;
  sums: ScopeSum[] | null;
}

export const recordKey = (kind: string, id: string) => `${kind}\n${id}`;

export interface SyncFeedReads {
  tenantState(tenantId: string): Promise<TenantFeedState>;
  /** Ids of the tenant's subject groups the user may view (null: every group of the tenant). */
  visibleGroups(tenantId: string, viewerUserId: string | null): Promise<string[]>;
  /** Where the log phase of a snapshot begins, noted before the snapshot is read. */
  startPosition(): Promise<LogPosition>;
  /**
   * Records in any of `keys` after `after` in (kind, id) order, each once, with the keys of
   * `report` (default: `keys`) it is in.
   */
  snapshotPage(tenantId: string, keys: readonly string[], after: readonly [RecordKind, string] | null, limit: number, report?: readonly string[]): Promise<MemberEntry[]>;
  /** Up to `limit` log rows after `after` (PostgreSQL: only txid < H), and the facts around them (LogPage). */
  logPage(tenantId: string, keys: readonly string[], after: LogPosition, limit: number): Promise<LogPage>;
  /** One key's members after `after`, in (kind, id) order, and whether the moment was quiet. */
  range(tenantId: string, key: string, after: readonly [RecordKind, string] | null, limit: number): Promise<{ entries: MemberEntry[]; quiet: boolean }>;
  /** Each record's version and every key it is in now (absent: in no key, or never logged). */
  memberships(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, MemberEntry>>;
  /** Count and checksum of keys now (quiet: as in LogPage). */
  sums(tenantId: string, keys: readonly string[]): Promise<{ sums: ScopeSum[]; quiet: boolean }>;
  /** The stored events / patrols of those ids that exist (any order), for their views. */
  eventsByIds(tenantId: string, ids: readonly string[]): Promise<EventRecord[]>;
  patrolsByIds(tenantId: string, ids: readonly string[]): Promise<Patrol[]>;
}

/** Retention of the log (server/domain/sync/retention.ts). */
export interface SyncRetentionStore {
  /**
   * Deletes up to `batch` log rows written before `before` (server clock; PostgreSQL: only rows
   * below the horizon) and raises each tenant's pruned mark to the last one deleted. One process
   * at a time. Answers how many rows went.
   */
  prune(before: number, batch: number): Promise<number>;
}
