import type { Logger } from 'pino';
import type { Clock } from '../../db/time.js';
import { PeriodicJob } from '../../domain/periodic.js';
import type { Store } from '../../domain/ports.js';
import type { FileRemovals } from '../file-sweeper.js';
import type { TusDatastore } from './datastore.js';

const BATCH = 200;

/**
 * Expiry of resumable uploads (FIELDOPS_UPLOAD_EXPIRY_HOURS; every FIELDOPS_UPLOAD_SWEEP_SECONDS
 * in each process). Rows past `expires_at` are deleted in batches, each row by one conditional
 * DELETE (of several processes, only the one whose statement deleted a row handles it);
 * then whatever the tus store holds for them is removed (an unfinished upload's bytes; a
 * finished one's leftovers), and the bytes of an upload stored but never attached are
 * released to the file sweeper (removed unless a file row refers to the same bytes). An
 * attached upload's row goes once the attach's repeat window has passed; its bytes are the file's.
 */
export class UploadSweep {
  private readonly job = new PeriodicJob(
    async () => {
      const removed = await this.sweepOnce();
      if (removed > 0) this.deps.logger.info({ removed }, 'expired uploads removed');
    },
    (error) => this.deps.logger.warn({ err: error }, 'upload expiry sweep failed; will retry'),
  );

  constructor(private readonly deps: { store: Store; clock: Clock; tus: TusDatastore; removals: FileRemovals; logger: Logger }) {}

  /** Removes every upload expired now; answers how many rows went. */
  async sweepOnce(): Promise<number> {
    const now = this.deps.clock.now();
    let total = 0;
    for (;;) {
      const expired = await this.deps.store.transaction((repos) => repos.uploads.deleteExpired(now, BATCH));
      for (const upload of expired) {
        try {
          await this.deps.tus.remove(this.deps.tus.tusIdOf(upload.id));
        } catch (error) {
          // The row is gone: bytes left behind are an unfinished upload's (S3 lifecycle rules or
          // an operator clean them); logged so that they are seen.
          this.deps.logger.warn({ err: error, upload: upload.id }, 'could not remove an expired upload\'s received bytes');
        }
      }
      const released = expired.filter((upload) => upload.state === 'stored' && upload.sha256).map((upload) => upload.sha256!);
      if (released.length > 0) await this.deps.removals.released(released);
      total += expired.length;
      if (expired.length < BATCH) return total;
    }
  }

  start(intervalSeconds: number): void {
    this.job.start(intervalSeconds, false);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
