/**
 * The merge as the services run it (issue 26 §3): `planMerge` reads the history since the
 * update's base and the tenant's policy and decides, `finishMerge` writes the revision's history
 * row and the conflict rows in the update's transaction and reports the outcome to the write
 * scope (what the Idempotency-Key stores and the batched push answers).
 */
import { randomUUID } from 'node:crypto';
import type { MergeKind } from '../../../protocol/merge-fields.js';
import type { ConflictPolicy } from '../../../protocol/push.js';
import type { WritePrecondition } from '../client-input.js';
import type { Principal } from '../context.js';
import { InputError } from '../errors.js';
import type { Repositories } from '../ports.js';
import { type WriteOutcome, currentWriteScope, scopedEntryKey } from '../write-scope.js';
import { recordRevision, writer } from './history.js';
import type { ConflictRow } from './ports.js';
import { type FieldValues, type MergeResult, threeWayMerge } from './three-way.js';

export interface MergePlan {
  /** The base revision; null for a blind update (nothing merged: every named field written). */
  base: number | null;
  policy: ConflictPolicy;
  result: MergeResult;
}

export interface PlanInput {
  kind: MergeKind;
  tenantId: string;
  id: string;
  /** The record's revision as `current` was read. */
  revision: number;
  current: FieldValues;
  mine: FieldValues;
  pre: WritePrecondition;
}

/** Decides the update (reads only). `repos` are the write's transaction's, or the store's under a compare-and-set. */
export async function planMerge(repos: Repositories, input: PlanInput): Promise<MergePlan> {
  const { kind, tenantId, id, revision, current, mine, pre } = input;
  const entryKey = scopedEntryKey(currentWriteScope());
  const base = pre.base;
  if (!base) {
    const replayed = entryKey ? await repos.revisions.findByEntry(tenantId, kind, id, entryKey) : null;
    const apply = new Map([...mine]);
    return { base: null, policy: 'hold', result: { status: replayed ? 'replayed' : 'applied', apply: replayed ? new Map() : apply, merged: [], conflicts: [], base: new Map() } };
  }
  if (!Number.isSafeInteger(base.revision) || base.revision < 1 || base.revision > revision) {
    throw InputError.field('base_revision', 'unknown_revision', `Revision ${base.revision} of this record is not known (it is at ${revision}).`, ['Send the revision of the record as it was last read.']);
  }
  const history = (await repos.revisions.since(tenantId, kind, id, base.revision)).filter((row) => row.revision <= revision);
  const policy = await repos.tenants.conflictPolicy(tenantId);
  const result = threeWayMerge({
    current, mine, policy, entryKey, chainLost: base.chainLost,
    history: history.map((row) => ({ revision: row.revision, fields: row.fields, entryKey: row.entryKey })),
  });
  return { base: base.revision, policy, result };
}

export interface FinishInput {
  kind: MergeKind;
  tenantId: string;
  id: string;
  /** What the outcome names (a segment update: the segment). */
  outcome: { kind: WriteOutcome['kind']; id: string };
  /** The revision the write made. */
  revision: number;
  plan: MergePlan;
  before: FieldValues;
  after: FieldValues;
  at: number;
}

/**
 * Writes the history row and the conflict rows, sets the scope's outcome, and answers the lines
 * the record's `updates` get (merged fields, conflicts) for an update with a base.
 */
export async function finishMerge(repos: Repositories, principal: Principal, input: FinishInput): Promise<{ conflicts: ConflictRow[]; lines: string[] }> {
  const { plan, tenantId, kind, id, revision, at } = input;
  const row = await recordRevision(repos, principal, { kind, tenantId, id, revision, base: plan.base, before: input.before, after: input.after, merged: plan.result.merged, at });
  const conflicts: ConflictRow[] = [];
  for (const conflict of plan.result.conflicts) {
    const stored: ConflictRow = {
      id: randomUUID(), tenantId, kind, recordId: id, field: conflict.field, base: conflict.base ?? null, mine: conflict.mine ?? null, theirs: conflict.theirs ?? null,
      baseRevision: plan.base, theirsRevision: conflict.theirsRevision, revision, entryKey: row.entryKey, deviceId: row.deviceId, userId: row.userId,
      policy: plan.policy, status: conflict.status, settledBy: conflict.settledBy ?? null, settledUserId: null,
      settledRevision: conflict.status === 'settled' ? revision : null, createdAt: at, settledAt: conflict.status === 'settled' ? at : null,
    };
    await repos.conflicts.insert(stored);
    conflicts.push(stored);
  }
  setOutcome({ status: plan.result.status === 'replayed' ? 'applied' : plan.result.status, kind: input.outcome.kind, id: input.outcome.id, revision, mergedFields: plan.result.merged, conflicts: conflicts.map(outcomeConflict) });
  return { conflicts, lines: plan.base === null ? [] : updateLines(plan, writer(principal).deviceId) };
}

/** A replayed update: nothing is written; the outcome names the conflicts the first run kept. */
export async function replayedOutcome(repos: Repositories, input: { kind: MergeKind; tenantId: string; id: string; revision: number; outcome: { kind: WriteOutcome['kind']; id: string } }): Promise<void> {
  const key = scopedEntryKey(currentWriteScope());
  const conflicts = key ? await repos.conflicts.ofEntry(input.tenantId, input.kind, input.id, key) : [];
  setOutcome({ status: 'replayed', kind: input.outcome.kind, id: input.outcome.id, revision: input.revision, mergedFields: [], conflicts: conflicts.map(outcomeConflict) });
}

export function outcomeConflict(row: ConflictRow): WriteOutcome['conflicts'][number] {
  return { id: row.id, field: row.field, base: row.base ?? null, mine: row.mine ?? null, theirs: row.theirs ?? null, status: row.status, policy: row.policy, ...(row.settledBy ? { settledBy: row.settledBy } : {}) };
}

/** The record's revision once the whole write is done (notes added with an update move it again). */
export function outcomeRevision(revision: number): void {
  const outcome = currentWriteScope()?.outcome;
  if (outcome) outcome.revision = revision;
}

function setOutcome(outcome: WriteOutcome): void {
  const scope = currentWriteScope();
  if (scope) scope.outcome = outcome;
}

const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** "Merged offline change from <device>: state (kept title, changed here)"; "Conflict on state: kept resolved, <device> sent active". */
function updateLines(plan: MergePlan, deviceId: string | null): string[] {
  const device = deviceId ?? 'a client';
  const { result } = plan;
  const lines: string[] = [];
  const written = [...result.apply.keys()].filter((path) => !result.conflicts.some((conflict) => conflict.field === path));
  if (result.merged.length > 0) lines.push(`Merged offline change from ${device}: ${written.join(', ') || 'no field'} (kept ${result.merged.join(', ')}, changed here)`);
  for (const conflict of result.conflicts) {
    lines.push(conflict.applied
      ? `Conflict on ${conflict.field}: took ${shown(conflict.mine)} from ${device}, was ${shown(conflict.theirs)}`
      : `Conflict on ${conflict.field}: kept ${shown(conflict.theirs)}, ${device} sent ${shown(conflict.mine)}`);
  }
  return lines;
}
