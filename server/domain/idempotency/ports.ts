/** The idempotency store's port (server/db/repositories/idempotency.ts implements it). */

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
  createdAt: number;
  expiresAt: number;
}

export interface IdempotencyRepository {
  /** Inserts the claim (state `committed`); a second claim of the same key fails (unique key). */
  claim(claim: KeyClaim): Promise<void>;
  find(tenantId: string, principal: string, key: string): Promise<StoredKey | null>;
  /** Stores the answer of a committed claim (state `answered`). */
  answer(tenantId: string, principal: string, key: string, answer: StoredAnswer): Promise<void>;
  /** Marks a committed claim answered without keeping the answer (state `unstored`). */
  unstored(tenantId: string, principal: string, key: string): Promise<void>;
  /** Deletes up to `limit` rows that expired before `now`; answers how many went. */
  deleteExpired(now: number, limit: number): Promise<number>;
}
