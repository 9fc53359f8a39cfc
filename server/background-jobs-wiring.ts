/**
 * The periodic jobs of a serving process (issues 24-26): each process that serves starts them
 * beside its requests, and stops them when it closes, or when it abandons a start it prepared.
 */
import type { Config } from './config.js';
import type { IdempotencySweep } from './domain/idempotency/sweep.js';
import type { PatrolSweeper } from './domain/patrols/sweep.js';
import type { SyncBackfill } from './domain/sync/backfill.js';
import type { SyncRetention } from './domain/sync/retention.js';
import type { FileSweeper } from './storage/file-sweeper.js';
import type { UploadSweep } from './storage/tus/sweep.js';
import { startSyncJobs, stopSyncJobs } from './sync-wiring.js';

/** The jobs, built by the composition root (server/main.ts) with the services they work for. */
export interface BackgroundJobs {
  /** Completes open patrols whose segments have all ended. */
  sweeper: PatrolSweeper;
  /** Removes the bytes of deleted files once nothing refers to them (issue 24). */
  fileSweeper: FileSweeper;
  /** Prunes change-log rows older than FIELDOPS_SYNC_RETENTION_DAYS (issue 25). */
  syncRetention: SyncRetention;
  /** Logs the records written before the change log existed, once per tenant (issue 25). */
  syncBackfill: SyncBackfill;
  /** Deletes Idempotency-Keys past FIELDOPS_IDEMPOTENCY_DAYS, hourly (issue 26). */
  idempotencySweep: IdempotencySweep;
  /** Removes resumable uploads past FIELDOPS_UPLOAD_EXPIRY_HOURS and their bytes (issue 26). */
  uploadSweep: UploadSweep;
}

export function startBackgroundJobs(jobs: BackgroundJobs, config: Config): void {
  jobs.sweeper.start(config.patrolSweepSeconds);
  jobs.fileSweeper.start(config.fileSweepSeconds);
  startSyncJobs({ retention: jobs.syncRetention, backfill: jobs.syncBackfill });
  jobs.idempotencySweep.start();
  jobs.uploadSweep.start(config.uploadSweepSeconds);
}

/** Stops the jobs one after the other; also safe for jobs that were never started (an abandoned start). */
export async function stopBackgroundJobs(jobs: BackgroundJobs): Promise<void> {
  await jobs.sweeper.stop();
  await jobs.fileSweeper.stop();
  await stopSyncJobs({ retention: jobs.syncRetention, backfill: jobs.syncBackfill });
  await jobs.idempotencySweep.stop();
  await jobs.uploadSweep.stop();
}
