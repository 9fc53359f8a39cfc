/**
 * The write scope: who is writing and under which `Idempotency-Key`, for the duration of one
 * request's handler (issue 26; docs/design/offline-writes-plan.md §1).
 *
 * NOTE: an AsyncLocalStorage rather than an argument. Record writes reach the unit of work
 * through dozens of `store.transaction` call sites; the scope is read only by the unit of
 * work's hooks (domain/idempotency/claim-hook.ts), so no service has to carry it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { KeyedRecordKind } from './idempotency/ports.js';

/** What a request's first committing write transaction stores with its key. */
export interface WriteClaim {
  key: string;
  /** sha256 (hex) of the request's canonical form: same key and another hash is a 422. */
  requestHash: string;
  /** The route's name (`events.patch`): what the key was used for. */
  op: string;
  /** The kind of record the route writes: the marked record of this kind is stored with the key. */
  recordKind: KeyedRecordKind;
}

export interface WriteScope {
  tenantId: string;
  /** `user:<id>` or `client:<client id>`: keys of different principals never meet. */
  principalKey: string;
  /** Set once the request's hash is known (after the body, or the upload, was read). */
  claim: WriteClaim | null;
  /** The record stored with the claim (the first marked record of `claim.recordKind`). */
  record: { kind: string; id: string } | null;
  /** Written by a transaction that has not finished yet: committed once it does. */
  pending: boolean;
  /** The claim row is committed: later transactions of the same request add none. */
  claimed: boolean;
  /** The mirror's client id (`Fieldops-Client-Id`), when sane: the device in history and conflict rows. */
  deviceId?: string | null;
  /**
   * What a merged update did (set by domain/merge inside the write's transaction, before the
   * commit): stored with the claim, answered per entry by the batched push.
   */
  outcome?: WriteOutcome;
}

/** The result of one record write as a batched push reports it (protocol/push.ts `PushOutcome`). */
export interface WriteOutcome {
  status: 'applied' | 'merged' | 'conflict' | 'replayed';
  kind: 'event' | 'patrol' | 'segment' | 'subject';
  id: string;
  revision: number;
  mergedFields: string[];
  conflicts: Array<{ id: string; field: string; base: unknown; mine: unknown; theirs: unknown; status: 'open' | 'settled'; policy: string; settledBy?: 'policy' | 'mine' | 'theirs' }>;
}

export const writeScopes = new AsyncLocalStorage<WriteScope>();

/**
 * The key history and conflict rows are stored under: the principal's and the client's key
 * together, since keys are the client's to choose and two users may pick the same one (a
 * replay is recognised only for the principal that sent it). At most 255 characters: a longer
 * pair is stored as its sha256.
 */
export function scopedEntryKey(scope: WriteScope | undefined): string | null {
  if (!scope?.claim) return null;
  const pair = `${scope.principalKey} ${scope.claim.key}`;
  return pair.length <= 255 ? pair : `sha256:${createHash('sha256').update(pair).digest('hex')}`;
}

/** The scope of the request under way, when it carries an Idempotency-Key. */
export function currentWriteScope(): WriteScope | undefined {
  return writeScopes.getStore();
}
