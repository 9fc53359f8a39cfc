/**
 * The records a transaction touched (server/domain/sync/ports.ts). One per transaction, created
 * by the unit of work; repositories mark, the pre-commit hook reads.
 */
import type { ChangeSet, MarkedRecord } from '../../domain/sync/ports.js';
import type { RecordKind } from '../../../protocol/sync.js';

export function transactionChangeSet(): ChangeSet {
  const marks = new Map<string, MarkedRecord>();
  return {
    mark(kind: RecordKind, tenantId: string, id: string) {
      const key = `${tenantId}\n${kind}\n${id}`;
      if (!marks.has(key)) marks.set(key, { kind, tenantId, id });
    },
    marked: () => [...marks.values()],
  };
}

/**
 * Repositories outside a transaction: a tracked write there could not append its change in
 * the same transaction, so it is a programming error, found by the first test that makes it.
 */
export const NO_TRANSACTION: ChangeSet = {
  mark(kind) {
    throw new Error(`tracked write outside a transaction: ${kind}`);
  },
  marked: () => [],
};
