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

export interface SyncRepository {
  /** Facts of those of `ids` that still exist; a missing id was deleted. */
  facts(tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, RecordFacts>>;
  /**
   * In the writing transaction: appends one `sync_changes` row per entry (its `old_scopes` read
   * from `sync_members`), replaces the record's memberships at the new version and applies the
   * count/checksum deltas to `sync_scope_sums`. `at`: the server clock, kept for retention only.
   */
  append(tenantId: string, entries: readonly LogEntry[], at: number): Promise<void>;
}
