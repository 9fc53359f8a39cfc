/**
 * Retention of idempotency keys (FIELDOPS_IDEMPOTENCY_DAYS, default and minimum 30): an hourly
 * job deletes rows past their `expires_at`, in batches of 5,000 (each its own statement).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../db/time.js';
import { PeriodicJob } from '../periodic.js';
import type { IdempotencyRepository } from './ports.js';

const BATCH = 5000;
export const IDEMPOTENCY_SWEEP_SECONDS = 3600;

export class IdempotencySweep {
  private readonly job = new PeriodicJob(
    async () => {
      const deleted = await this.sweepOnce();
      if (deleted > 0) this.deps.logger.info({ deleted }, 'expired idempotency keys deleted');
    },
    (error) => this.deps.logger.warn({ err: error }, 'idempotency key sweep failed; will retry'),
  );

  constructor(private readonly deps: { repository: IdempotencyRepository; clock: Clock; logger: Logger }) {}

  /** Deletes every row expired now; answers how many went. */
  async sweepOnce(): Promise<number> {
    const now = this.deps.clock.now();
    let total = 0;
    for (;;) {
      const deleted = await this.deps.repository.deleteExpired(now, BATCH);
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }

  start(intervalSeconds = IDEMPOTENCY_SWEEP_SECONDS): void {
    this.job.start(intervalSeconds, false);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
