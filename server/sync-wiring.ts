/**
 * The sync feed's part of the composition root (issue 25, docs/sync.md): the unit of work's
 * pre-commit hook that appends the change log, the feed and repair services, and the two
 * periodic jobs (the one-time backfill of records older than the log, and retention).
 */
import type { Logger } from 'pino';
import type { Database, Dialect } from './db/knex.js';
import { KnexIdempotencyRepository } from './db/repositories/idempotency.js';
import { claimCommitted, claimInTransaction, claimWithoutMarks } from './domain/idempotency/claim-hook.js';
import type { StoreHooks } from './db/store.js';
import { KnexSyncFeedReads } from './db/sync/feed-read.js';
import { KnexSyncRetentionStore } from './db/sync/feed-retention.js';
import { syncMetrics } from './db/sync/metrics.js';
import type { Clock } from './db/time.js';
import type { ChoiceService } from './domain/choices/service.js';
import { EventDetailsChecker } from './domain/events/details.js';
import type { Store } from './domain/ports.js';
import { SYNC_BACKFILL_SECONDS, SyncBackfill } from './domain/sync/backfill.js';
import { SyncRepairService } from './domain/sync/feed-repair.js';
import { SyncFeedService } from './domain/sync/feed.js';
import { recordChanges } from './domain/sync/record-changes.js';
import { SyncRetention } from './domain/sync/retention.js';
import type { Metrics } from './metrics/metrics.js';

/** How often each process prunes the change log past its retention (counted in days). */
const SYNC_RETENTION_SWEEP_SECONDS = 3600;

/**
 * Every write transaction appends its change-log entries before it commits; with `idempotency`,
 * the first one of a request sent with an Idempotency-Key also stores the key (issue 26).
 */
export function changeLogHooks(clock: Clock, idempotency?: { dialect: Dialect; retentionDays: number }): StoreHooks {
  if (!idempotency) return { beforeCommit: (repos, changes) => recordChanges(repos, changes, clock.now()) };
  return {
    async beforeCommit(repos, changes, trx) {
      const now = clock.now();
      await recordChanges(repos, changes, now);
      await claimInTransaction(new KnexIdempotencyRepository(trx, idempotency.dialect), changes, now, idempotency.retentionDays);
    },
    afterCommit: claimCommitted,
    withoutMarks: claimWithoutMarks,
  };
}

export interface SyncParts {
  feed: SyncFeedService;
  repair: SyncRepairService;
  retention: SyncRetention;
  backfill: SyncBackfill;
}

export function openSync(deps: { database: Database; store: Store; choices: ChoiceService; clock: Clock; logger: Logger; retentionDays: number; metrics: Metrics }): SyncParts {
  const { database, store, clock, logger } = deps;
  syncMetrics(deps.metrics, database.knex, database.dialect);
  const feed = new SyncFeedService({ store, reads: new KnexSyncFeedReads(database.knex, database.dialect), checker: new EventDetailsChecker(deps.choices) });
  return {
    feed,
    repair: new SyncRepairService(feed),
    retention: new SyncRetention({ store: new KnexSyncRetentionStore(database.knex, database.dialect), clock, logger, retentionDays: deps.retentionDays }),
    backfill: new SyncBackfill({ store, clock, logger }),
  };
}

export function startSyncJobs(parts: Pick<SyncParts, 'retention' | 'backfill'>): void {
  parts.retention.start(SYNC_RETENTION_SWEEP_SECONDS);
  parts.backfill.start(SYNC_BACKFILL_SECONDS);
}

export async function stopSyncJobs(parts: Pick<SyncParts, 'retention' | 'backfill'>): Promise<void> {
  await parts.retention.stop();
  await parts.backfill.stop();
}
