/**
 * The batched push (issue 26 §4; docs/sync.md "Batched push"): a laptop's outbox entries, run in
 * order, each under its own Idempotency-Key (the entry's key, the caller's principal), in its
 * own write scope and transaction, so one refusal never undoes another. Runs of `event.create`
 * go through bulk-creates.ts, up to 100 per transaction.
 *
 * Before an entry runs: `recorded_by` another user → rejected 403; its key stored with the same
 * request → `replayed` with the stored outcome (never run again, never a conflict), with another
 * → rejected 422; a key in `after` that has not succeeded (here or before) → `failed_dependency`;
 * a base `{entry}` resolved from that entry's outcome (its revision, plus the fields it lost to
 * conflicts), unknown → `failed_dependency` `base_entry_unknown`. Past the batch's time budget
 * the rest are `deferred` (the first entry always runs, so every batch makes progress).
 */
import type { PushEntry } from '../../../protocol/push.js';
import type { WritePrecondition } from '../client-input.js';
import { type RequestContext, actingUser, requirePermission, requirePrincipal } from '../context.js';
import type { StoredKey } from '../idempotency/ports.js';
import { requestHash } from '../idempotency/request-hash.js';
import type { IdempotencyService } from '../idempotency/service.js';
import { type WriteScope, writeScopes } from '../write-scope.js';
import { runCreates } from './bulk-creates.js';
import { type PushServices, type PushValue, dispatch, recordKindOf } from './dispatch.js';
import { type EntryOutcome, chainLostOf, refused, refusedOutcome, replayedOutcome, writtenOutcome } from './outcomes.js';

export interface EntryResult {
  outcome: EntryOutcome;
  /** What the entry wrote, for the handler to present (`record`). */
  value?: PushValue;
}

export interface PushRun {
  principalKey: string;
  deviceId: string | null;
  /** True once the batch's time budget is spent (asked between entries). */
  overBudget(): boolean;
}

/** What a batch knows while it runs: each key's hash and outcome, and the keys stored before it. */
export interface BatchState {
  ctx: RequestContext;
  run: PushRun;
  stored: Map<string, StoredKey>;
  done: Map<string, { hash: string; outcome: EntryOutcome }>;
  /** Whether any entry has run yet (the first always runs, whatever the budget). */
  started: boolean;
}

/** Prepared to run: its hash and precondition, or an outcome decided without running it. */
export type Checked = { hash: string; pre: WritePrecondition } | { hash: string; outcome: EntryOutcome };

const SUCCEEDED = new Set(['applied', 'merged', 'conflict', 'replayed']);

/** The hash of an entry: the op, what it targets, its base and its body (canonical JSON). */
export function entryHash(entry: PushEntry): string {
  return requestHash(entry.op, { ...(entry.id ? { id: entry.id } : {}), ...(entry.segment ? { segment: entry.segment } : {}) }, { base: entry.base ?? null, body: entry.body ?? null });
}

export class PushService {
  constructor(private readonly deps: { services: PushServices; idempotency: IdempotencyService }) {}

  async run(ctx: RequestContext, entries: readonly PushEntry[], run: PushRun): Promise<EntryResult[]> {
    // A caller who may write no record at all is told so once (403), not per entry.
    const principal = requirePermission(ctx, 'add_event', 'change_event', 'delete_event', 'add_patrol', 'change_patrol');
    const scope = { tenantId: principal.tenantId, principalKey: run.principalKey };
    const referenced = entries.flatMap((entry) => [entry.key, ...(entry.after ?? []), ...(entry.base && 'entry' in entry.base ? [entry.base.entry] : [])]);
    const state: BatchState = { ctx, run, stored: await this.deps.idempotency.findMany(scope, referenced), done: new Map(), started: false };
    const results: EntryResult[] = [];
    let index = 0;
    while (index < entries.length) {
      if (state.started && run.overBudget()) {
        for (const entry of entries.slice(index)) results.push({ outcome: deferred(entry.key) });
        break;
      }
      const creates = this.createRun(entries, index, state);
      if (creates.length > 1) {
        results.push(...(await runCreates(this, state, creates)));
        index += creates.length;
        continue;
      }
      results.push(await this.runOne(state, entries[index]!));
      index++;
    }
    return results;
  }

  /** The run of `event.create` entries without `after` from `start` whose keys are new to this batch. */
  private createRun(entries: readonly PushEntry[], start: number, state: BatchState): PushEntry[] {
    const run: PushEntry[] = [];
    const keys = new Set<string>();
    for (const entry of entries.slice(start)) {
      if (entry.op !== 'event.create' || entry.after?.length || keys.has(entry.key) || state.done.has(entry.key)) break;
      keys.add(entry.key);
      run.push(entry);
    }
    return run;
  }

  /** The checks before an entry runs (recorded_by, replay, after, base). */
  check(state: BatchState, entry: PushEntry): Checked {
    const { key } = entry;
    const user = actingUser(requirePrincipal(state.ctx));
    if (entry.recorded_by !== undefined && entry.recorded_by !== user?.id) {
      return { hash: '', outcome: refused(key, 'rejected', 403, { code: 'recorded_by_other_user', message: 'This entry was recorded by another user.', field: 'recorded_by', hint: 'Log in as the user who recorded it to send it, or drop it (fieldops outbox drop).' }) };
    }
    const hash = entryHash(entry);
    const earlier = state.done.get(key);
    const stored = earlier && SUCCEEDED.has(earlier.outcome.status) ? { hash: earlier.hash, replay: () => ({ ...earlier.outcome, status: 'replayed' as const, key }) } : null;
    const kept = state.stored.get(key);
    const known = stored ?? (kept ? { hash: kept.requestHash, replay: () => replayedOutcome(key, kept) } : null);
    if (known) {
      if (known.hash !== hash) return { hash: '', outcome: refused(key, 'rejected', 422, { code: 'idempotency_key_reused', message: 'This key was used before for another entry.', field: 'idempotency_key', hint: 'Send a new key with each new entry.' }) };
      return { hash, outcome: known.replay() };
    }
    for (const dependency of entry.after ?? []) {
      if (!this.succeeded(state, dependency)) {
        return { hash, outcome: refused(key, 'failed_dependency', 424, { code: 'dependency_failed', message: `Entry ${dependency} has not succeeded.`, field: 'after', hint: 'Send the entry it depends on first.' }) };
      }
    }
    const pre: WritePrecondition = {};
    if (entry.base && 'revision' in entry.base) pre.base = { revision: entry.base.revision };
    if (entry.base && 'entry' in entry.base) {
      const base = this.baseOf(state, entry.base.entry);
      if (!base) return { hash, outcome: refused(key, 'failed_dependency', 424, { code: 'base_entry_unknown', message: `The entry this one follows (${entry.base.entry}) is not known to have succeeded.`, field: 'base', hint: 'Send that entry first, or base this one on a revision.' }) };
      pre.base = base;
    }
    return { hash, pre };
  }

  private succeeded(state: BatchState, key: string): boolean {
    const here = state.done.get(key);
    if (here) return SUCCEEDED.has(here.outcome.status);
    return state.stored.has(key);
  }

  /** An `{entry}` base: that entry's revision after it, and the fields it lost. */
  private baseOf(state: BatchState, key: string): WritePrecondition['base'] | null {
    const here = state.done.get(key);
    const outcome = here ? (SUCCEEDED.has(here.outcome.status) ? here.outcome : null) : state.stored.has(key) ? replayedOutcome(key, state.stored.get(key)!) : null;
    if (!outcome) return null;
    // NOTE: a create whose outcome was never stored (the server stopped after its commit) started at 1.
    const revision = outcome.revision ?? (state.stored.get(key)?.op?.endsWith('.create') ? 1 : undefined);
    if (revision === undefined) return null;
    const chainLost = chainLostOf(outcome);
    return chainLost ? { revision, chainLost } : { revision };
  }

  /** One entry: checked, then run in its own scope and transaction. */
  async runOne(state: BatchState, entry: PushEntry): Promise<EntryResult> {
    const checked = this.check(state, entry);
    state.started = true;
    if ('outcome' in checked) return this.settle(state, entry.key, checked.hash, { outcome: checked.outcome });
    const scope = this.scopeFor(state, { key: entry.key, requestHash: checked.hash, op: entry.op, recordKind: recordKindOf(entry.op) });
    try {
      const done = await writeScopes.run(scope, () => dispatch(this.deps.services, state.ctx, entry, checked.pre));
      const outcome = writtenOutcome(entry.key, entry.op, done, scope.outcome);
      if (scope.claimed) {
        // The write is committed whatever happens here: a lost update only costs the replay its details.
        await this.deps.idempotency.storeOutcome(scope, entry.key, outcome, outcome.revision ?? null).catch((error: unknown) => state.ctx.log.warn({ err: error }, 'push outcome not stored'));
      }
      return this.settle(state, entry.key, checked.hash, { outcome, value: done.value });
    } catch (error) {
      // A twin (the same key, at the same time) committed first: answer as the twin.
      if (!scope.claimed) {
        const twin = await this.deps.idempotency.find(scope, entry.key).catch(() => null);
        if (twin && twin.requestHash === checked.hash) return this.settle(state, entry.key, checked.hash, { outcome: replayedOutcome(entry.key, twin) });
      }
      if (refusedOutcome(entry.key, 'rejected', error).http_status >= 500) state.ctx.log.error({ err: error, key: entry.key, op: entry.op }, 'push entry failed');
      return this.settle(state, entry.key, checked.hash, { outcome: refusedOutcome(entry.key, 'rejected', error) });
    }
  }

  /** Records an entry's outcome in the batch (for later `after`, bases and repeated keys). */
  settle(state: BatchState, key: string, hash: string, result: EntryResult): EntryResult {
    const earlier = state.done.get(key);
    // A refusal decided before running never hides an earlier success of the same key.
    if (!(earlier && SUCCEEDED.has(earlier.outcome.status) && !SUCCEEDED.has(result.outcome.status))) state.done.set(key, { hash: hash || earlier?.hash || '', outcome: result.outcome });
    return result;
  }

  scopeFor(state: BatchState, claim: WriteScope['claim']): WriteScope {
    const principal = requirePrincipal(state.ctx);
    return { tenantId: principal.tenantId, principalKey: state.run.principalKey, claim, record: null, pending: false, claimed: false, deviceId: state.run.deviceId };
  }

  get services(): PushServices {
    return this.deps.services;
  }

  get idempotency(): IdempotencyService {
    return this.deps.idempotency;
  }
}

export function deferred(key: string): EntryOutcome {
  return refused(key, 'deferred', 503, { code: 'push_budget_spent', message: 'The batch ran out of time before this entry; nothing of it was done.', hint: 'Send it again in the next batch.' });
}
