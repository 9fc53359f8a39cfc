import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RECORD_KINDS } from '../../../protocol/sync.js';
import type { Clock } from '../../db/time.js';
import type { Store } from '../ports.js';
import type { BackfillClaim } from './ports.js';
import { PeriodicJob } from '../periodic.js';

/** Records examined per transaction (keyset by id within a kind), at most as many marked. */
export const BACKFILL_CHUNK = 500;
/** How often a server looks for tenants to backfill (a database upgraded while it ran, a dead process's claim). */
export const SYNC_BACKFILL_SECONDS = 60;
/** A claim not renewed for this long is a dead process's: another takes the tenant over where it got to. */
export const BACKFILL_STALE_MS = 5 * 60_000;

/**
 * The one-time backfill of the change log (issue 25): records written before the log existed
 * are in no scope, so neither the feed's snapshot nor its checksums know them. Per tenant,
 * under a claim in `sync_tenant_state`, each kind's records that are in no scope are marked in
 * chunks, each chunk one transaction that the unit of work's hook turns into log entries (the
 * path of every write). Until a tenant is done the feed answers 503 sync_preparing.
 *
 * A chunk examines the kind's next `chunk` records by id (keyset), whether or not they need
 * marking, so that its work is bounded by its size (see unloggedStep in server/db/sync).
 * Exactly once: a chunk marks, inside its transaction, only those still in no scope, and keeps
 * the claim (a conditional update of the claim's row, with the last id examined) in the same
 * transaction, so a taken-over claim stops at its next chunk and a restarted one resumes
 * without re-marking.
 * Safe with several processes: a tenant is claimed by a conditional update, one wins.
 */
export class SyncBackfill {
  private readonly job = new PeriodicJob(
    () => this.runOnce(),
    (error) => this.deps.logger.warn({ err: error }, 'sync backfill failed; will retry'),
  );

  constructor(private readonly deps: { store: Store; clock: Clock; logger: Logger; chunk?: number }) {}

  /** Backfills every tenant it can claim now; answers how many records it marked. */
  async runOnce(): Promise<number> {
    const { store, clock } = this.deps;
    await store.repos.sync.addPendingBackfills();
    let marked = 0;
    for (;;) {
      const now = clock.now();
      const claim = await store.repos.sync.claimBackfill(randomUUID(), now, now - BACKFILL_STALE_MS);
      if (!claim) return marked;
      const done = await this.backfillTenant(claim);
      marked += done.marked;
      if (done.finished) this.deps.logger.info({ tenantId: claim.tenantId, marked: done.marked }, 'sync change log backfilled');
      else return marked;
    }
  }

  /** Marks the claimed tenant's unlogged records from where the claim got to; finished: false when the claim was lost. */
  private async backfillTenant(claim: BackfillClaim): Promise<{ marked: number; finished: boolean }> {
    const { store, clock } = this.deps;
    const limit = this.deps.chunk ?? BACKFILL_CHUNK;
    let marked = 0;
    const start = claim.kind ? RECORD_KINDS.indexOf(claim.kind) : 0;
    for (const kind of RECORD_KINDS.slice(Math.max(0, start))) {
      let after = kind === claim.kind ? claim.after : null;
      for (;;) {
        const step = await store.transaction(async (repos) => {
          const found = await repos.sync.unlogged(claim.tenantId, kind, after, limit);
          if (!(await repos.sync.advanceBackfill({ ...claim, kind, after: found.last }, clock.now()))) return null;
          await repos.sync.markChanged(claim.tenantId, kind, found.ids);
          return found;
        });
        if (step === null) return { marked, finished: false };
        marked += step.ids.length;
        if (step.done) break;
        after = step.last;
      }
    }
    return { marked, finished: await store.repos.sync.finishBackfill(claim) };
  }

  /** A first pass now, then one every `intervalSeconds` (new tenants of an old database, stale claims); 0 turns both off. */
  start(intervalSeconds: number): void {
    this.job.start(intervalSeconds, true);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
