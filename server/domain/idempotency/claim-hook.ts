/**
 * The unit of work's part of idempotency: the first transaction of a keyed request that writes
 * a record inserts the key's claim row in that same transaction, so the key commits with the
 * write or not at all. A second request with the same key that got this far (two identical
 * requests at once) fails here on the unique key, rolls back, and is answered the first one's
 * answer by the route step (http/middleware/idempotency.ts).
 */
import type { ChangeSet } from '../sync/ports.js';
import { currentWriteScope } from '../write-scope.js';
import type { IdempotencyRepository } from './ports.js';

const DAY_MS = 86_400_000;

/** Runs before the commit of a transaction that marked records (server/db/store.ts StoreHooks). */
export async function claimInTransaction(repository: IdempotencyRepository, changes: ChangeSet, now: number, retentionDays: number): Promise<void> {
  const scope = currentWriteScope();
  if (!scope?.claim || scope.claimed) return;
  const claim = scope.claim;
  const record = changes.marked().find((marked) => marked.kind === claim.recordKind && marked.tenantId === scope.tenantId) ?? null;
  await repository.claim({
    tenantId: scope.tenantId,
    principal: scope.principalKey,
    key: claim.key,
    requestHash: claim.requestHash,
    op: claim.op,
    recordKind: record?.kind ?? null,
    recordId: record?.id ?? null,
    createdAt: now,
    expiresAt: now + retentionDays * DAY_MS,
  });
  // Committed only when the transaction is: see claimCommitted. A rolled-back one leaves
  // `pending` set, and the request's next write transaction claims again.
  scope.pending = true;
  scope.record = record ? { kind: record.kind, id: record.id } : null;
}

/** Runs after the commit of a transaction whose pre-commit hook ran. */
export function claimCommitted(): void {
  const scope = currentWriteScope();
  if (scope?.pending) {
    scope.pending = false;
    scope.claimed = true;
  }
}
