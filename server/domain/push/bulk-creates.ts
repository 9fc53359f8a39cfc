/**
 * Runs of `event.create` entries without `after` (issue 26 §4): up to 100 events per
 * transaction through `EventService.createMany`, each entry's key claimed in that transaction
 * (domain/idempotency/claim-hook.ts `claimGroup`), its outcome complete in the claim row.
 *
 * Each entry is checked first, as one alone would be (recorded_by, replay, reuse); the bodies
 * are validated outside the transaction, and invalid ones are rejected with the error their
 * single route would answer while the rest go on. A group that still fails (a client id that
 * exists, a twin batch) is redone one entry at a time, so each gets its own answer.
 */
import type { PushEntry } from '../../../protocol/push.js';
import { EventBatchInputError } from '../events/service.js';
import { type GroupClaim, claimGroup } from '../idempotency/claim-hook.js';
import { writeScopes } from '../write-scope.js';
import { refusedOutcome, writtenOutcome } from './outcomes.js';
import { type BatchState, type EntryResult, type PushService, deferred } from './service.js';

/** Events per transaction: large enough to spread a commit, small enough to redo one by one. */
export const CREATES_PER_TRANSACTION = 100;

interface Pending {
  entry: PushEntry;
  hash: string;
  /** Position in the run (results are answered in order). */
  at: number;
}

export async function runCreates(push: PushService, state: BatchState, entries: readonly PushEntry[]): Promise<EntryResult[]> {
  const results: Array<EntryResult | undefined> = new Array(entries.length);
  const pending: Pending[] = [];
  for (const [at, entry] of entries.entries()) {
    const checked = push.check(state, entry);
    if ('outcome' in checked) results[at] = push.settle(state, entry.key, checked.hash, { outcome: checked.outcome });
    else pending.push({ entry, hash: checked.hash, at });
  }
  for (let start = 0; start < pending.length; start += CREATES_PER_TRANSACTION) {
    const group = pending.slice(start, start + CREATES_PER_TRANSACTION);
    if (state.started && state.run.overBudget()) {
      for (const item of pending.slice(start)) results[item.at] = { outcome: deferred(item.entry.key) };
      break;
    }
    state.started = true;
    for (const [item, result] of await runGroup(push, state, group)) results[item.at] = result;
  }
  return results.map((result) => result!);
}

/** One group in one transaction; the invalid items rejected first; the group redone one by one if it fails. */
async function runGroup(push: PushService, state: BatchState, group: Pending[]): Promise<Array<[Pending, EntryResult]>> {
  const answered: Array<[Pending, EntryResult]> = [];
  let items = group;
  while (items.length > 0) {
    const claims: GroupClaim[] = items.map((item) => ({ claim: { key: item.entry.key, requestHash: item.hash, op: item.entry.op, recordKind: 'event' } }));
    const scope = push.scopeFor(state, null);
    claimGroup(scope, claims);
    try {
      const views = await writeScopes.run(scope, () =>
        push.services.events.createMany(state.ctx, items.map((item) => item.entry.body), async (_repos, created) => {
          created.forEach((view, index) => {
            const claim = claims[index]!;
            claim.recordId = view.event.id;
            claim.revision = view.event.revision;
            claim.outcome = writtenOutcome(items[index]!.entry.key, 'event.create', { value: { type: 'none' }, kind: 'event', id: view.event.id, revision: view.event.revision }, undefined);
          });
        }),
      );
      views.forEach((view, index) => {
        const item = items[index]!;
        const outcome = writtenOutcome(item.entry.key, 'event.create', { value: { type: 'none' }, kind: 'event', id: view.event.id, revision: view.event.revision }, undefined);
        answered.push([item, push.settle(state, item.entry.key, item.hash, { outcome, value: { type: 'event', view } })]);
      });
      return answered;
    } catch (error) {
      if (error instanceof EventBatchInputError) {
        // Validation runs before the transaction: nothing was written. Reject those, retry the rest.
        for (const [index, cause] of error.items) answered.push([items[index]!, push.settle(state, items[index]!.entry.key, items[index]!.hash, { outcome: refusedOutcome(items[index]!.entry.key, 'rejected', cause) })]);
        items = items.filter((_item, index) => !error.items.has(index));
        continue;
      }
      // Rolled back as a whole: each entry on its own says which one failed and why.
      for (const item of items) answered.push([item, await push.runOne(state, item.entry)]);
      return answered;
    }
  }
  return answered;
}
