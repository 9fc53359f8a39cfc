/**
 * Retention of the change log (FIELDOPS_SYNC_RETENTION_DAYS, default 90): a periodic job,
 * shaped like the patrol sweeper, deletes log rows older than the retention and raises each
 * tenant's pruned mark; a cursor below the mark is then answered 410 sync_cursor_expired and
 * the laptop starts again from a snapshot. `sync_members` and the sums are current state and
 * are not touched, so a fresh snapshot is always complete.
 * Several processes may run it: the store lets one prune at a time (db/sync/feed-retention.ts).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../db/time.js';
import type { SyncRetentionStore } from './feed-ports.js';
import { PeriodicJob } from '../periodic.js';

const DAY_MS = 86_400_000;
/** Rows per delete statement: each batch is its own short transaction. */
const BATCH = 5000;

export class SyncRetention {
  private readonly job = new PeriodicJob(
    async () => {
      const deleted = await this.pruneOnce();
      if (deleted > 0) this.deps.logger.info({ deleted }, 'sync log rows past the retention pruned');
    },
    (error) => this.deps.logger.warn({ err: error }, 'sync log retention failed; will retry'),
  );

  constructor(private readonly deps: { store: SyncRetentionStore; clock: Clock; logger: Logger; retentionDays: number }) {}

  /** Prunes everything due now; answers how many rows went. */
  async pruneOnce(): Promise<number> {
    const before = this.deps.clock.now() - this.deps.retentionDays * DAY_MS;
    let total = 0;
    for (;;) {
      const deleted = await this.deps.store.prune(before, BATCH);
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }

  start(intervalSeconds: number): void {
    this.job.start(intervalSeconds, false);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
