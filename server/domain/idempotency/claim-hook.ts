/**
 * The unit of work's part of idempotency: the first transaction of a keyed request that writes
 * a record inserts the key's claim row in that same transaction, so the key commits with the
 * write or not at all. A second request with the same key that got this far (two identical
 * requests at once) fails here on the unique key, rolls back, and is answered the first one's
 * answer by the route step (http/middleware/idempotency.ts).
 *
 * A batched push's run of creates (domain/push/bulk-creates.ts) writes many records in one
 * transaction under many keys: it registers them with `claimGroup`, and this hook inserts all
 * of them in that transaction.
 */
import type { ChangeSet } from '../sync/ports.js';
import { type WriteClaim, type WriteScope, currentWriteScope } from '../write-scope.js';
import { type IdempotencyRepository, isUnmarkedKind } from './ports.js';
import { crashPoint } from '../../testing/crash-points.js';

const DAY_MS = 86_400_000;

/**
 * One key of a group written by one transaction. The record, its revision and the outcome are
 * filled inside the transaction, before its commit: the row is complete when it commits.
 */
export interface GroupClaim {
  claim: WriteClaim;
  recordId?: string;
  revision?: number;
  /** The entry's outcome (protocol/push.ts `PushOutcome`, without the record), stored as JSON. */
  outcome?: unknown;
}

const groups = new WeakMap<WriteScope, GroupClaim[]>();
const noted = new WeakMap<WriteScope, { kind: string; tenantId: string; id: string }>();

/**
 * Names the record a keyed write of an unmarked kind changed (nothing on the feed names it): it
 * is stored with the key, and a repeat whose answer was lost re-reads it by its id, whatever the
 * path named (a source addressed by a manufacturer id the write renamed). Call inside the
 * write's transaction, before it commits; outside a keyed request it does nothing.
 */
export function noteWrittenRecord(kind: string, tenantId: string, id: string): void {
  const scope = currentWriteScope();
  if (scope?.claim && !scope.claimed && scope.claim.recordKind === kind) noted.set(scope, { kind, tenantId, id });
}

/**
 * Registers the keys the scope's next committing transaction stores (instead of `scope.claim`).
 * Cleared once that transaction commits; a rolled-back one leaves them for a retry.
 */
export function claimGroup(scope: WriteScope, claims: GroupClaim[]): void {
  groups.set(scope, claims);
}

/** Runs before the commit of a transaction that marked records (server/db/store.ts StoreHooks). */
export async function claimInTransaction(repository: IdempotencyRepository, changes: ChangeSet, now: number, retentionDays: number): Promise<void> {
  const scope = currentWriteScope();
  if (!scope || scope.claimed) return;
  const expiresAt = now + retentionDays * DAY_MS;
  const group = groups.get(scope);
  if (group) {
    for (const item of group) {
      await repository.claim({
        tenantId: scope.tenantId, principal: scope.principalKey, key: item.claim.key, requestHash: item.claim.requestHash, op: item.claim.op,
        recordKind: item.claim.recordKind, recordId: item.recordId ?? null, recordRevision: item.revision ?? null, outcome: item.outcome ?? null,
        deviceId: scope.deviceId ?? null, state: 'unstored', createdAt: now, expiresAt,
      });
    }
    scope.pending = true;
    crashPoint('push.entry.before-commit');
    return;
  }
  if (!scope.claim) return;
  const claim = scope.claim;
  const record = changes.marked().find((marked) => marked.kind === claim.recordKind && marked.tenantId === scope.tenantId) ?? notedRecord(scope);
  await repository.claim({
    tenantId: scope.tenantId,
    principal: scope.principalKey,
    key: claim.key,
    requestHash: claim.requestHash,
    op: claim.op,
    recordKind: record?.kind ?? null,
    recordId: record?.id ?? null,
    // Known here for merged updates (domain/merge sets it in the transaction); creates store it with the answer.
    recordRevision: scope.outcome?.revision ?? null,
    outcome: scope.outcome ?? null,
    deviceId: scope.deviceId ?? null,
    createdAt: now,
    expiresAt,
  });
  // Committed only when the transaction is: see claimCommitted. A rolled-back one leaves
  // `pending` set, and the request's next write transaction claims again.
  scope.pending = true;
  scope.record = record ? { kind: record.kind, id: record.id } : null;
  crashPoint('push.entry.before-commit');
}

/** The record noted by this transaction (noteWrittenRecord), once: a later transaction notes its own. */
function notedRecord(scope: WriteScope): { kind: string; id: string } | null {
  const record = noted.get(scope);
  noted.delete(scope);
  return record && record.tenantId === scope.tenantId ? record : null;
}

/**
 * Whether a transaction that marked no record still runs the pre-commit hook: the first write
 * transaction of a keyed request whose records are not on the feed (sources, messages,
 * observations, group memberships), so that its key commits with that write. A feed kind's key
 * waits for the transaction that marks its record, as before.
 */
export function claimWithoutMarks(): boolean {
  const scope = currentWriteScope();
  return !!scope?.claim && !scope.claimed && isUnmarkedKind(scope.claim.recordKind);
}

/** Runs after the commit of a transaction whose pre-commit hook ran. */
export function claimCommitted(): void {
  const scope = currentWriteScope();
  if (scope?.pending) {
    scope.pending = false;
    scope.claimed = true;
    groups.delete(scope);
    crashPoint('push.entry.after-commit');
  }
}
