/**
 * The write side of the sync feed (issue 25, docs/sync.md): every write transaction marks the
 * records it touched in its ChangeSet; before the commit, the unit of work (server/db/store.ts)
 * runs `recordChanges` (record-changes.ts), which loads each marked record's facts in that same
 * transaction, computes its scope keys (scopes.ts) and appends one change per record through
 * `SyncRepository.append`. A write outside a transaction cannot mark: its ChangeSet throws.
 */
import type { RecordKind } from '../../../protocol/sync.js';

export interface MarkedRecord {
  kind: RecordKind;
  tenantId: string;
  id: string;
}

export interface ChangeSet {
  /** The record (its root: a patrol for its notes, segments and files) changed in this transaction. */
  mark(kind: RecordKind, tenantId: string, id: string): void;
  /** Each marked record once, in marking order. */
  marked(): MarkedRecord[];
}

/** What an event's scope keys are computed from, read in the writing transaction. */
export interface EventFacts {
  kind: 'event';
  id: string;
  /** ISO 8601 UTC. */
  time: string | null;
  category: string | null;
  latitude: number | null;
  longitude: number | null;
  createdBy: string | null;
  /** Subject groups of the leaders of the patrol segments the event is linked to. */
  teams: string[];
}

export interface PatrolFacts {
  kind: 'patrol';
  id: string;
  state: string;
  /** ISO 8601 UTC start of the first segment's window (or the creation time). */
  startTime: string | null;
  /** The creating user and the users leading a segment. */
  users: string[];
  /** Subject groups of the subjects leading a segment. */
  teams: string[];
}

export interface SubjectFacts {
  kind: 'subject';
  id: string;
  groups: string[];
}

export interface CatalogFacts {
  kind: 'patrol_type' | 'event_type' | 'event_category' | 'choice';
  id: string;
}

export type RecordFacts = EventFacts | PatrolFacts | SubjectFacts | CatalogFacts;

/** One change to append: `delete` when the record no longer exists (scopes then empty). */
export interface LogEntry {
  kind: RecordKind;
  id: string;
  op: 'put' | 'delete';
  scopes: string[];
}

/** Kinds whose changes can move other records' keys (SyncRepository.dependents). */
export type DependentKind = 'subject' | 'patrol' | 'event_type';

export interface SyncRepository {
  /** Facts of those of `ids` that still exist; a missing id was deleted. */
  facts(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, RecordFacts>>;
  /**
   * In the writing transaction: appends one `sync_changes` row per entry (its `old_scopes` read
   * from `sync_members`), replaces the record's memberships at the new version and applies the
   * count/checksum deltas to `sync_scope_sums`. `at`: the server clock, kept for retention only.
   */
  append(tenantId: string, entries: readonly LogEntry[], at: number): Promise<void>;

  /** The scope keys each of `ids` is in before this transaction's append (a record never logged: none). */
  memberKeys(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, string[]>>;
  /**
   * Records whose keys derive from these, to log again when these moved: for subjects, the
   * patrols they lead a segment of (`pa:team`); for patrols, the events linked to their segments
   * (`ev:team`); for event types, their events whose category key (`categoryKey(category)`,
   * null: none) is not the type's now. Ids of kind patrol for subjects, event otherwise.
   */
  dependents(tenantId: string, kind: DependentKind, ids: readonly string[], categoryKey: (category: string) => string | null): Promise<string[]>;

  /**
   * Marks records as changed in this transaction's ChangeSet, as a repository write does (the
   * backfill re-marks records written before the log existed). Throws outside a transaction.
   */
  markChanged(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<void>;

  // ---- The one-time backfill of records written before the log existed (backfill.ts) ----
  /**
   * One keyset step over the tenant's records of `kind`: examines the first `limit` of them
   * with id greater than `after` (ascending) and answers those in no scope (never logged: every
   * existing, logged record is in one key at least). Work bounded by `limit`, whatever the
   * database's statistics; a step may find none while records remain (`done` says when not).
   */
  unlogged(tenantId: string, kind: RecordKind, after: string | null, limit: number): Promise<UnloggedStep>;
  /** Gives every tenant without sync state a pending backfill; answers how many were added. */
  addPendingBackfills(): Promise<number>;
  /**
   * Claims a tenant whose backfill is pending, or running under a claim older than
   * `staleBefore` (its process died), resuming where it got to; null when there is none.
   */
  claimBackfill(claimId: string, now: number, staleBefore: number): Promise<BackfillClaim | null>;
  /**
   * Keeps the claim fresh and records how far it got, in the chunk's transaction (so a
   * taken-over claim stops at its next chunk); false when the claim is no longer this one's.
   */
  advanceBackfill(claim: BackfillClaim, now: number): Promise<boolean>;
  /** Marks the tenant's backfill done (the feed serves it from now on); false when the claim was lost. */
  finishBackfill(claim: BackfillClaim): Promise<boolean>;
}

/** One step of the backfill over a kind's records, by id (SyncRepository.unlogged). */
export interface UnloggedStep {
  /** The examined records in no scope, ascending. */
  ids: string[];
  /** The greatest id examined (the next step's `after`); `after` itself when none was. */
  last: string | null;
  /** Fewer than `limit` records were examined: none of this kind is greater than `last`. */
  done: boolean;
}

/** Where a claimed backfill is: the kind being marked and the last id examined (null: from the start). */
export interface BackfillClaim {
  tenantId: string;
  claimId: string;
  kind: RecordKind | null;
  after: string | null;
}
