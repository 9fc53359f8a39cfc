/** The idempotency store's port (server/db/repositories/idempotency.ts implements it). */
import type { RecordKind } from '../../../protocol/sync.js';

/**
 * Records of keyed writes that are not on the sync feed (the subject side, issue 27): their
 * writes mark nothing, so their key is claimed by the request's first write transaction,
 * whatever it marked (claim-hook.ts `claimWithoutMarks`), and is stored with no record.
 */
export const UNMARKED_RECORD_KINDS = ['source', 'source_provider', 'subject_source', 'subject_group', 'message', 'observation'] as const;

/** What a keyed route writes: a feed kind (the claim stores the marked record) or an unmarked one. */
export type KeyedRecordKind = RecordKind | (typeof UNMARKED_RECORD_KINDS)[number];

export function isUnmarkedKind(kind: string): boolean {
  return (UNMARKED_RECORD_KINDS as readonly string[]).includes(kind);
}

/** What a replay repeats: the status, the handler's JSON (before presentation) and a few headers. */
export interface StoredAnswer {
  status: number;
  /** Undefined for an answer without a body (204). */
  body: unknown;
  headers: Record<string, string>;
}

export interface StoredKey {
  requestHash: string;
  op: string | null;
  /** `unstored`: answered, but the answer was too large to keep (a replay re-reads the record at once). */
  state: 'committed' | 'answered' | 'unstored';
  recordKind: string | null;
  recordId: string | null;
  answer: StoredAnswer | null;
  /** The record's revision after the write (what a later entry based on this key merges against). */
  recordRevision: number | null;
  /** What the write did, as the batched push reports it (protocol/push.ts `PushOutcome`, JSON). */
  outcome: unknown;
  createdAt: number;
  expiresAt: number;
}

export interface KeyClaim {
  tenantId: string;
  principal: string;
  key: string;
  requestHash: string;
  op: string;
  recordKind: string | null;
  recordId: string | null;
  /** Known in the transaction for merged updates (write scope `outcome`); else stored with the answer. */
  recordRevision?: number | null;
  outcome?: unknown;
  /** The mirror's client id (`Fieldops-Client-Id`), when sane. */
  deviceId?: string | null;
  /** `unstored` when the outcome is complete already (a batch's group of creates): no answer follows. */
  state?: 'committed' | 'unstored';
  createdAt: number;
  expiresAt: number;
}

export interface IdempotencyRepository {
  /** Inserts the claim (state `committed`); a second claim of the same key fails (unique key). */
  claim(claim: KeyClaim): Promise<void>;
  find(tenantId: string, principal: string, key: string): Promise<StoredKey | null>;
  /** The stored keys among `keys` (one query per 500), by key. */
  findMany(tenantId: string, principal: string, keys: readonly string[]): Promise<Map<string, StoredKey>>;
  /** Stores the answer of a committed claim (state `answered`). */
  answer(tenantId: string, principal: string, key: string, answer: StoredAnswer, recordRevision?: number | null): Promise<void>;
  /** Marks a committed claim answered without keeping the answer (state `unstored`). */
  unstored(tenantId: string, principal: string, key: string): Promise<void>;
  /**
   * Stores a batch entry's outcome and revision after its commit, and marks the key `unstored`
   * (a single-route replay of it then re-reads the record at once).
   */
  storeOutcome(tenantId: string, principal: string, key: string, outcome: unknown, recordRevision: number | null): Promise<void>;
  /** Deletes up to `limit` rows that expired before `now`; answers how many went. */
  deleteExpired(now: number, limit: number): Promise<number>;
}
