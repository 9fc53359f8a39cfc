import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KnexStoredFileRepository } from '../db/repositories/stored-files.js';
import type { Clock } from '../db/time.js';
import type { FileStore } from './file-store.js';
import { PeriodicJob } from '../domain/periodic.js';

/**
 * How long a sweeper's claim on a key protects its removal. A claim older than this is a dead
 * (or stalled) process's: another sweeper may take it over, and an upload of the same bytes that
 * has waited this long for it takes it over too (leased-store.ts). A live sweeper's removal ends
 * within REMOVAL_BUDGET_MS of its claim, half of this.
 * NOTE: a sweeper's takeover compares `claimed_at` with this process's clock: the clocks of
 * processes sharing a database must agree within half of this (NTP does far better). An
 * upload's takeover compares no clocks (it measures its own wait).
 */
export const CLAIM_STALE_MS = 60_000;
/**
 * A removal ends within this of the moment its sweeper sent its claim: none starts past half of
 * it, and the store's request is aborted at its end.
 */
export const REMOVAL_BUDGET_MS = CLAIM_STALE_MS / 2;

/**
 * Time as the removal protocol measures it: monotonic (a wall clock that steps must not stretch
 * or shorten a wait), and a signal that fires once `ms` of it have passed. Tests pass their own.
 */
export interface Stopwatch {
  now(): number;
  signalAfter(ms: number): AbortSignal;
}

// NOTE: AbortSignal.timeout takes whole milliseconds only (it throws on a fraction).
export const monotonicStopwatch: Stopwatch = { now: () => performance.now(), signalAfter: (ms) => AbortSignal.timeout(Math.max(0, Math.floor(ms))) };

/** A scan whose claim was not renewed for this long is a dead process's; another resumes it from the start. */
const SCAN_STALE_MS = 10 * 60_000;
const BATCH = 500;

/** What a service that deleted references calls once its transaction has committed. */
export interface FileRemovals {
  /** Removes the bytes of these keys now if nothing uses them; never throws (a sweep retries). */
  released(sha256s: readonly string[]): Promise<void>;
}

export interface SweepResult {
  removed: number;
  /** Keys found unreferenced by this pass's scan of the store (when one ran). */
  orphansQueued: number;
}

/**
 * Removes stored bytes nothing refers to (issue 24). The store is content-addressed and shared
 * by every tenant, so the unit is a sha256: removable only when no event file or patrol file of
 * any tenant refers to it and no upload holds a lease on it (leased-store.ts).
 *
 * Keys are queued by the transaction that deletes a reference (stored-files.ts), and by the
 * one-time scan of each store. A removal: claim the key (a conditional update, so among several
 * processes one wins), then check that nothing uses it, then remove the bytes, then delete the
 * queue row (kept if the key was queued again meanwhile). The removal is bounded in time
 * (REMOVAL_BUDGET_MS): an upload of the same bytes may be waiting for it, and stops waiting
 * after CLAIM_STALE_MS (the protocol: leased-store.ts). A removal that fails or times out (the
 * bucket is unreachable or hangs) releases its claim and is retried by the next sweep; one whose
 * process died is taken over once its claim is stale.
 *
 * A sweep also turns stale leases (their process died between storing bytes and referring to
 * them) into queued keys, and scans the store once for bytes nothing refers to (uploads deleted
 * before removal existed, or copied by `admin migrate-files`): those are queued too, not before
 * the grace period since they were written has passed (an upload by a process of an earlier
 * version takes no lease).
 */
export class FileSweeper implements FileRemovals {
  private readonly job = new PeriodicJob(
    () => this.sweepOnce(),
    (error) => this.deps.logger.warn({ err: error }, 'file sweep failed; will retry'),
  );

  private readonly stopwatch: Stopwatch;

  constructor(private readonly deps: { repository: KnexStoredFileRepository; files: FileStore; clock: Clock; logger: Logger; graceMs: number; stopwatch?: Stopwatch }) {
    this.stopwatch = deps.stopwatch ?? monotonicStopwatch;
  }

  async released(sha256s: readonly string[]): Promise<void> {
    for (const sha256 of new Set(sha256s)) {
      try {
        await this.removeIfUnused(sha256);
      } catch (error) {
        this.deps.logger.warn({ err: error, sha256 }, 'could not remove a deleted file\'s bytes; the file sweep will retry');
      }
    }
  }

  /** Claims, checks and removes one queued key; true when this call removed its bytes. */
  async removeIfUnused(sha256: string): Promise<boolean> {
    const { repository, clock, files, logger } = this.deps;
    const now = clock.now();
    // Read before the claim is sent: the budget runs from no later than its commit.
    const started = this.stopwatch.now();
    const claim = await repository.claimRemoval(sha256, randomUUID(), now, now - CLAIM_STALE_MS);
    if (!claim) return false;
    try {
      // Read after the claim committed: an upload that leased the key before is seen here; one
      // that leases it later sees the claim and waits (leased-store.ts).
      if (await repository.inUse(sha256, now - this.deps.graceMs)) {
        await repository.settleRemoval(claim);
        return false;
      }
      const left = started + REMOVAL_BUDGET_MS - this.stopwatch.now();
      if (left < REMOVAL_BUDGET_MS / 2) {
        // Too little time left for a request that may be slow: the next sweep tries again.
        await repository.releaseRemoval(claim);
        return false;
      }
      await files.remove(sha256, { signal: this.stopwatch.signalAfter(left) });
    } catch (error) {
      await repository.releaseRemoval(claim).catch(() => undefined);
      throw error;
    }
    if (!(await repository.settleRemoval(claim))) {
      // The claim was taken over while the bytes were being removed: the removal outlasted its
      // budget (a store that ignored the abort, a process paused past its deadline). An upload
      // of the same bytes may have stored them meanwhile; the key stays queued.
      logger.error({ sha256 }, 'a file removal outlasted its claim: an upload of the same bytes meanwhile may have lost them');
    }
    return true;
  }

  /** One full pass: the store's scan if it is due, stale leases, then every queued key. */
  async sweepOnce(): Promise<SweepResult> {
    const orphansQueued = await this.scanIfDue();
    await this.reapStaleLeases();
    let removed = 0;
    let after = '';
    for (;;) {
      const now = this.deps.clock.now();
      const due = await this.deps.repository.dueRemovals(after, BATCH, now, now - CLAIM_STALE_MS);
      for (const sha256 of due) {
        try {
          if (await this.removeIfUnused(sha256)) removed++;
        } catch (error) {
          this.deps.logger.warn({ err: error, sha256 }, 'could not remove unreferenced bytes; will retry');
        }
      }
      if (due.length < BATCH) break;
      after = due.at(-1)!;
    }
    if (removed > 0) this.deps.logger.info({ removed }, 'removed the bytes of deleted files');
    return { removed, orphansQueued };
  }

  /** A lease not renewed within the grace period belongs to a dead process: its key is queued. */
  private async reapStaleLeases(): Promise<void> {
    const before = this.deps.clock.now() - this.deps.graceMs;
    for (;;) {
      const stale = await this.deps.repository.staleLeases(before, BATCH);
      for (const lease of stale) {
        if (await this.deps.repository.dropStaleLease(lease.id, before)) await this.deps.repository.queue([lease.sha256]);
      }
      if (stale.length < BATCH) return;
    }
  }

  /**
   * Lists the store once (per store: a new bucket is scanned on its first start) and queues
   * what nothing refers to. Claimed in the database, so one process scans; renewed per batch.
   */
  private async scanIfDue(): Promise<number> {
    const { repository, clock, files } = this.deps;
    const storeId = createHash('sha256').update(files.description).digest('hex');
    if (await repository.scanned(storeId)) return 0;
    const claimId = randomUUID();
    if (!(await repository.claimScan(storeId, files.description, claimId, clock.now(), clock.now() - SCAN_STALE_MS))) return 0;
    let queued = 0;
    let batch: Array<{ sha256: string; modifiedAt: number }> = [];
    const flush = async () => {
      const orphans = new Set(await repository.unreferenced(batch.map((file) => file.sha256)));
      const found = batch.filter((file) => orphans.has(file.sha256));
      await repository.queueOrphans(found.map((file) => ({ sha256: file.sha256, notBefore: Math.ceil(file.modifiedAt) + this.deps.graceMs })));
      queued += found.length;
      batch = [];
      return repository.renewScan(storeId, claimId, clock.now());
    };
    for await (const file of files.list()) {
      batch.push(file);
      if (batch.length >= BATCH && !(await flush())) return queued;
    }
    if (!(await flush())) return queued;
    await repository.finishScan(storeId, claimId, clock.now());
    if (queued > 0) this.deps.logger.info({ store: files.description, queued }, 'queued stored files nothing refers to');
    return queued;
  }

  /** A first pass now (crash recovery, the store's scan), then one every `intervalSeconds`; 0 turns both off. */
  start(intervalSeconds: number): void {
    this.job.start(intervalSeconds, true);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
