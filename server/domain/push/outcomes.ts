/**
 * Outcomes of batched-push entries (protocol/push.ts `PushOutcome`): from a write, from an error,
 * from a stored key (a replay), and what a later entry based on one inherits (`chainLost`).
 */
import type { PushConflict, PushOp, PushOutcome } from '../../../protocol/push.js';
import { PUSH_OPS } from '../../../protocol/push.js';
import { DomainError, InputError } from '../errors.js';
import type { StoredKey } from '../idempotency/ports.js';
import type { WriteOutcome } from '../write-scope.js';
import { type Dispatched, SUCCESS_STATUS } from './dispatch.js';

export type EntryOutcome = Omit<PushOutcome, 'record'>;

/** What an entry that wrote answers: the merge's outcome when it ran (scope.outcome), else `applied`. */
export function writtenOutcome(key: string, op: PushOp, done: Dispatched, merge: WriteOutcome | undefined): EntryOutcome {
  const outcome: EntryOutcome = { key, status: merge?.status ?? 'applied', http_status: SUCCESS_STATUS[op] };
  const kind = done.kind ?? merge?.kind;
  const id = done.id ?? merge?.id;
  const revision = done.revision ?? merge?.revision;
  if (kind) outcome.kind = kind;
  if (id) outcome.id = id;
  if (revision !== undefined) outcome.revision = revision;
  if (merge?.mergedFields.length) outcome.merged_fields = merge.mergedFields;
  if (merge?.conflicts.length) outcome.conflicts = merge.conflicts.map(toPushConflict);
  if (done.sha256) outcome.sha256 = done.sha256;
  return outcome;
}

/** A refused entry: the status and error the single route would have answered. */
export function refusedOutcome(key: string, status: 'rejected' | 'failed_dependency', error: unknown): EntryOutcome {
  if (!(error instanceof DomainError)) {
    return { key, status, http_status: 500, error: { code: 'internal_error', message: 'An internal error occurred; it has been logged with this request id.' } };
  }
  return { key, status, http_status: error.status, error: errorOf(error) };
}

/** A refusal the push itself decides (not a service): its status, code and words. */
export function refused(key: string, status: 'rejected' | 'failed_dependency' | 'deferred', httpStatus: number, error: NonNullable<PushOutcome['error']>): EntryOutcome {
  return { key, status, http_status: httpStatus, error };
}

/** The contract error as one entry's `error`: an input error names its first field. */
function errorOf(error: DomainError): NonNullable<PushOutcome['error']> {
  if (error instanceof InputError) {
    const [field, issues] = Object.entries(error.fields)[0] ?? [];
    const issue = issues?.[0];
    if (field && issue) return { code: issue.code, message: issue.message, field, ...(issue.hints[0] ? { hint: issue.hints[0] } : {}) };
  }
  return { code: error.code, message: error.message };
}

/**
 * The stored outcome of a key, answered `replayed` (never run again). Keys stored by a batch hold
 * a PushOutcome; keys of single routes hold the merge's WriteOutcome (or nothing) and an answer.
 */
export function replayedOutcome(key: string, stored: StoredKey): EntryOutcome {
  const kept = (stored.outcome ?? {}) as Partial<PushOutcome> & Partial<WriteOutcome>;
  const op = PUSH_OPS.includes(stored.op as PushOp) ? (stored.op as PushOp) : null;
  const outcome: EntryOutcome = { key, status: 'replayed', http_status: kept.http_status ?? stored.answer?.status ?? (op ? SUCCESS_STATUS[op] : 200) };
  const kind = kept.kind ?? (stored.recordKind as EntryOutcome['kind'] | null);
  const id = kept.id ?? stored.recordId;
  const revision = kept.revision ?? stored.recordRevision ?? undefined;
  if (kind) outcome.kind = kind;
  if (id) outcome.id = id;
  if (revision !== undefined && revision !== null) outcome.revision = revision;
  const merged = kept.merged_fields ?? kept.mergedFields;
  if (merged?.length) outcome.merged_fields = merged;
  if (kept.conflicts?.length) outcome.conflicts = kept.conflicts.map((conflict) => toPushConflict(conflict as AnyConflict));
  if (kept.sha256) outcome.sha256 = kept.sha256;
  return outcome;
}

type AnyConflict = WriteOutcome['conflicts'][number] & { settled_by?: PushConflict['settled_by'] };

function toPushConflict(conflict: AnyConflict): PushConflict {
  const settledBy = conflict.settled_by ?? conflict.settledBy;
  return {
    id: conflict.id, field: conflict.field, base: conflict.base, mine: conflict.mine, theirs: conflict.theirs, status: conflict.status,
    policy: conflict.policy as PushConflict['policy'], ...(settledBy ? { settled_by: settledBy } : {}),
  };
}

/**
 * The fields an entry lost (its value is not the record's): conflicts still open, or settled for
 * theirs (by a person, or by the `server_wins` policy). A later entry based on it takes the lost
 * value, the entry's own `mine`, as its base for those fields (merge §3 step 3).
 */
export function chainLostOf(outcome: Pick<PushOutcome, 'conflicts'>): Record<string, unknown> | undefined {
  const lost: Record<string, unknown> = {};
  for (const conflict of outcome.conflicts ?? []) {
    const theirsKept = conflict.status === 'open' || conflict.settled_by === 'theirs' || (conflict.settled_by === 'policy' && conflict.policy === 'server_wins');
    if (theirsKept) lost[conflict.field] = conflict.mine;
  }
  return Object.keys(lost).length > 0 ? lost : undefined;
}
