import type { Knex } from 'knex';
import { KnexSiteMapRepository } from './repositories/site-maps.js';
import type { Repositories, Store } from '../domain/ports.js';
import { translated, translateDbError } from './errors.js';
import type { Database, Dialect } from './knex.js';
import { KnexCatalogRepository } from './repositories/catalog.js';
import { KnexChoiceRepository } from './repositories/choices.js';
import { KnexCatalogItemRepository, KnexEventTypeRepository, patrolTypesTable } from './repositories/catalog-items.js';
import { KnexEventCategoryRepository, KnexEventTypeV1Repository } from './repositories/event-types.js';
import { KnexSubjectRepository } from './repositories/subjects.js';
import { pendingMigrations } from './migrate.js';
import { KnexClientRepository } from './repositories/clients.js';
import { KnexTenantRepository } from './repositories/tenants.js';
import { KnexThrottleRepository } from './repositories/throttle.js';
import { KnexTokenRepository } from './repositories/tokens.js';
import { KnexUserRepository } from './repositories/users.js';
import type { Executor } from './rows.js';
import type { HotReads } from './hot-reads.js';
import { KnexPatrolRepository } from './repositories/patrols.js';
import { KnexSensorRepository } from './repositories/sensors.js';
import { KnexObservationRepository } from './repositories/observations.js';
import { KnexSensorSubjectRepository } from './repositories/sensors-subjects.js';
import { KnexEventRepository } from './repositories/events.js';
import { KnexEventNoteRepository } from './repositories/events-notes.js';
import { KnexUploadRepository } from './repositories/uploads.js';
import type { ChangeSet } from '../domain/sync/ports.js';
import { NO_TRANSACTION, transactionChangeSet } from './sync/change-set.js';
import { KnexSyncRepository } from './sync/repository.js';
import type { TrackedTransaction } from './tracked-transaction.js';
import { KnexRevisionRepository } from './repositories/revisions.js';
import { KnexConflictRepository } from './repositories/conflicts.js';
import { KnexSubjectSourceRepository } from './repositories/subject-sources.js';
import { KnexTrackRepository } from './repositories/tracks.js';
import { KnexEventRelationshipRepository } from './repositories/event-relationships.js';
import { KnexMessageRepository } from './repositories/messages.js';
import { KnexFeatureRepository } from './repositories/features.js';
import { KnexEventUsageRepository } from './repositories/event-usage.js';
import { KnexCatalogDraftRepository } from './repositories/catalog-drafts.js';
import { NO_USAGE_TALLY, UsageTally } from '../domain/events/usage-deltas.js';

// `changes`: where this transaction's writes mark the records they touch (NO_TRANSACTION outside one).
// `tracked` (outside a transaction only): a tracked transaction of its own, for the patrol create's fast paths.
// `usage`: where this transaction's event writes add their usage deltas (applied before its commit).
function repositoriesFor(db: Executor, dialect: Dialect, changes: ChangeSet, hot?: HotReads, tracked?: TrackedTransaction, usage?: UsageTally): Repositories {
  return {
    catalog: translated(new KnexCatalogRepository(db, dialect, hot)),
    patrols: translated(new KnexPatrolRepository(db, dialect, changes, tracked)),
    choices: translated(new KnexChoiceRepository(db, changes)),
    eventTypes: translated(new KnexEventTypeRepository(db, changes)),
    eventCategories: translated(new KnexEventCategoryRepository(db, changes)),
    eventTypesV1: translated(new KnexEventTypeV1Repository(db, changes)),
    patrolTypes: translated(new KnexCatalogItemRepository(db, patrolTypesTable, changes)),
    subjects: translated(new KnexSubjectRepository(db, changes)),
    tenants: translated(new KnexTenantRepository(db)),
    users: translated(new KnexUserRepository(db, hot)),
    clients: translated(new KnexClientRepository(db)),
    tokens: translated(new KnexTokenRepository(db, hot)),
    throttle: translated(new KnexThrottleRepository(db)),
    sensors: translated(new KnexSensorRepository(db, dialect)),
    observations: translated(new KnexObservationRepository(db, dialect)),
    sensorSubjects: translated(new KnexSensorSubjectRepository(db, changes)),
    events: translated(new KnexEventRepository(db, dialect, changes, usage ?? NO_USAGE_TALLY)),
    eventNotes: translated(new KnexEventNoteRepository(db, changes)),
    siteMaps: translated(new KnexSiteMapRepository(db)),
    sync: translated(new KnexSyncRepository(db, dialect, changes)),
    uploads: translated(new KnexUploadRepository(db)),
    revisions: translated(new KnexRevisionRepository(db)),
    conflicts: translated(new KnexConflictRepository(db)),
    subjectSources: translated(new KnexSubjectSourceRepository(db, dialect, changes)),
    tracks: translated(new KnexTrackRepository(db, dialect, changes)),
    eventRelationships: translated(new KnexEventRelationshipRepository(db, dialect, changes)),
    messages: translated(new KnexMessageRepository(db, dialect, changes)),
    features: translated(new KnexFeatureRepository(db, dialect, changes)),
    eventUsage: translated(new KnexEventUsageRepository(db, dialect)),
    catalogDrafts: translated(new KnexCatalogDraftRepository(db)),
  };
}

/**
 * Runs in every write transaction after its work, before its commit (the sync change log, the
 * Idempotency-Key claim); `trx` is that transaction. `afterCommit` runs once it committed.
 */
export interface StoreHooks {
  beforeCommit(repos: Repositories, changes: ChangeSet, trx: Executor): Promise<void>;
  afterCommit?(): void;
  /** True when a transaction that marked no record runs the hooks too (a keyed write of unmarked records). */
  withoutMarks?(): boolean;
}

/**
 * The Knex-backed store: repositories outside a transaction (their hot-path reads through
 * `hot` when given), and a runner whose repositories are bound to one transaction. Every
 * transaction collects the records it touched and hands them to `hooks.beforeCommit` inside
 * the same transaction, so the change log commits with the writes or not at all.
 */
export function createStore(database: Database, hot?: HotReads, hooks?: StoreHooks): Store {
  const { knex } = database;
  // The unit of work: one transaction, its ChangeSet, and the hook before its commit.
  const unitOfWork = async <R>(work: (trx: Knex.Transaction, changes: ChangeSet, repos: Repositories) => Promise<R>): Promise<R> => {
    let hooked = false;
    const result = await knex.transaction(async (trx) => {
      const changes = transactionChangeSet();
      const usage = new UsageTally();
      const repos = repositoriesFor(trx, database.dialect, changes, undefined, undefined, usage);
      const result = await work(trx, changes, repos);
      // The usage counts of every event written, once, sorted (usage-deltas.ts UsageTally): the
      // first pre-commit step, so its row locks come in one order in every transaction.
      await new KnexEventUsageRepository(trx).applyTally(usage);
      if (hooks && (changes.marked().length > 0 || hooks.withoutMarks?.())) {
        await hooks.beforeCommit(repos, changes, trx);
        hooked = true;
      }
      return result;
    });
    if (hooked) hooks?.afterCommit?.();
    return result;
  };
  return {
    repos: repositoriesFor(knex, database.dialect, NO_TRANSACTION, hot, unitOfWork),
    async transaction(work) {
      try {
        return await unitOfWork((_trx, _changes, repos) => work(repos));
      } catch (error) {
        throw translateDbError(error);
      }
    },
    async ping() {
      try {
        await knex.raw('select 1');
      } catch (error) {
        throw translateDbError(error);
      }
    },
    async pendingMigrations() {
      try {
        return await pendingMigrations(knex);
      } catch (error) {
        throw translateDbError(error);
      }
    },
  };
}
