/** The merge's storage ports (server/db/repositories/{revisions,conflicts}.ts implement them). */
import type { ConflictPolicy } from '../../../protocol/push.js';
import type { MergeKind } from '../../../protocol/merge-fields.js';

/** One revision of an event or a patrol that an update (or a settled conflict) made. */
export interface RevisionRow {
  tenantId: string;
  kind: MergeKind;
  recordId: string;
  revision: number;
  action: 'updated' | 'settled';
  /** The revision the update was based on; null for a blind update. */
  baseRevision: number | null;
  /** `{path: [before, after]}` of every merge field the revision changed. */
  fields: Record<string, [unknown, unknown]>;
  /** Paths changed since the base that the update did not name (kept). */
  merged: string[];
  userId: string | null;
  /** The OAuth client the request came through. */
  clientId: string | null;
  /** The laptop (`Fieldops-Client-Id`); `server` for the automatic sweep. */
  deviceId: string | null;
  /** The write's Idempotency-Key: a later request with it is a replay. */
  entryKey: string | null;
  at: number;
}

export type ConflictStatus = 'open' | 'settled';
export type ConflictSettler = 'policy' | 'mine' | 'theirs';

/** One field an update and the server both changed since the update's base. */
export interface ConflictRow {
  id: string;
  tenantId: string;
  kind: MergeKind;
  recordId: string;
  field: string;
  /** `undefined`: the value was absent (an event_details key not there). */
  base: unknown;
  mine: unknown;
  theirs: unknown;
  baseRevision: number | null;
  theirsRevision: number | null;
  /** The revision the update made (both values known from then on). */
  revision: number;
  entryKey: string | null;
  deviceId: string | null;
  userId: string | null;
  policy: ConflictPolicy;
  status: ConflictStatus;
  settledBy: ConflictSettler | null;
  settledUserId: string | null;
  settledRevision: number | null;
  createdAt: number;
  settledAt: number | null;
}

export interface ConflictFilter {
  status?: ConflictStatus;
  kind?: MergeKind;
  recordId?: string;
}

export interface RevisionRepository {
  append(row: RevisionRow): Promise<void>;
  /** Rows after `afterRevision`, oldest first. */
  since(tenantId: string, kind: MergeKind, recordId: string, afterRevision: number): Promise<RevisionRow[]>;
  /** A row of this record written under `entryKey`, if any. */
  findByEntry(tenantId: string, kind: MergeKind, recordId: string, entryKey: string): Promise<RevisionRow | null>;
  /** Every row of the record, newest first (at most `limit`). */
  list(tenantId: string, kind: MergeKind, recordId: string, limit: number): Promise<RevisionRow[]>;
  deleteOf(tenantId: string, kind: MergeKind, recordId: string): Promise<void>;
}

export interface ConflictRepository {
  insert(row: ConflictRow): Promise<void>;
  find(tenantId: string, id: string): Promise<ConflictRow | null>;
  /** Newest first, at most `limit`. */
  list(tenantId: string, filter: ConflictFilter, limit: number): Promise<ConflictRow[]>;
  ofEntry(tenantId: string, kind: MergeKind, recordId: string, entryKey: string): Promise<ConflictRow[]>;
  /** Settles the conflict if it is still as read (`status` and `settledBy` unchanged); false otherwise. */
  settle(row: ConflictRow, expected: Pick<ConflictRow, 'status' | 'settledBy'>): Promise<boolean>;
  deleteOf(tenantId: string, kind: MergeKind, recordId: string): Promise<void>;
}
