import { SchemaLifecycleService } from './domain/catalog/lifecycle.js';
import { EventUsageService } from './domain/events/usage.js';
import type { Socket } from 'node:net';
import { openSubjectSide } from './subject-side-wiring.js';
import type { Logger } from 'pino';
import { type Services, createApp } from './app.js';
import type { Config } from './config.js';
import { AdminService } from './domain/admin.js';
import { type BootstrapResult, bootstrapEmptyDatabase } from './domain/bootstrap.js';
import { openOAuth } from './oauth-wiring.js';
import type { Store } from './domain/ports.js';
import { loadCommonPasswords, packageRoot } from './domain/users/common-passwords.js';
import { StartupService } from './domain/startup/service.js';
import { RealtimeHub, type RealtimeRelay } from './http/realtime/hub.js';
import { loadDemoData } from './domain/demo.js';
import fs from 'node:fs';
import path from 'node:path';
import { UserService } from './domain/users/service.js';
import { CatalogService } from './domain/catalog/service.js';
import { ChoiceService } from './domain/choices/service.js';
import { SubjectService } from './domain/subjects/service.js';
import { patrolTypeKind } from './domain/patrol-types/kind.js';
import { eventTypeKind } from './domain/event-types/kind.js';
import { EventCategoryService } from './domain/event-types/categories.js';
import { EventTypeMigrationService } from './domain/event-types/migration.js';
import { EventTypeV1Service } from './domain/event-types/v1.js';
import { PatrolService } from './domain/patrols/service.js';
import { PatrolNoteService } from './domain/patrols/notes.js';
import { PatrolFileService } from './domain/patrols/files.js';
import { EventService } from './domain/events/service.js';
import { PatrolSweeper } from './domain/patrols/sweep.js';
import { ConflictService } from './domain/merge/conflicts.js';
import { changeLogHooks, openSync } from './sync-wiring.js';
import { type BackgroundJobs, startBackgroundJobs, stopBackgroundJobs } from './background-jobs-wiring.js';
import { serveHttp } from './http-server-wiring.js';
import { KnexIdempotencyRepository } from './db/repositories/idempotency.js';
import { IdempotencyService } from './domain/idempotency/service.js';
import { IdempotencySweep } from './domain/idempotency/sweep.js';
import { PushAdmission } from './domain/push/admission.js';
import { type Database, openDatabase } from './db/knex.js';
import { migrateToLatest } from './db/migrate.js';
import { createStore } from './db/store.js';
import { openHotReads } from './db/hot-reads.js';
import { type Clock, systemClock } from './db/time.js';
import { createLogger } from './logger.js';
import { type Listener, bindListener, checkDataDir, handedListener } from './startup.js';
import { translateConnectError } from './db/connect-errors.js';
import { databaseIsSetUp, requireDatabaseFile, requireFieldopsTables } from './db/existing.js';
import { checkAdminPasswordFile, writeAdminPasswordFile } from './admin-password-file.js';
import { SensorService } from './domain/sensors/service.js';
import { UploadSlots } from './http/upload-slots.js';
import { IconLibrary } from './storage/icons.js';
import { openFileStore, withRemovals } from './storage/open.js';
import { openUploads } from './storage/tus/open.js';
import { type ClusterMetrics, Metrics } from './metrics/metrics.js';
import { ResponseChecker } from './http/openapi/response-check.js';
import { createHttpAjv } from './http/schemas/ajv.js';

/**
 * The composition root: config → database → store → services → app. Nothing else wires
 * dependencies (the *-wiring.ts modules beside this file build parts of it for it); there are
 * no module singletons.
 */
export interface Runtime extends BackgroundJobs {
  config: Config;
  database: Database;
  store: Store;
  services: Services;
  admin: AdminService;
  clock: Clock;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger?: Logger;
  clock?: Clock;
  /** Run pending migrations (default); a cluster worker opens a database its primary migrated. */
  migrate?: boolean;
  /**
   * Create a missing database (SQLite file) and migrate an empty one (default). False (an admin
   * command without --create): a missing file, or a database without fieldops tables, is a
   * ConfigError and nothing is created.
   */
  create?: boolean;
  /** In a cluster worker: shares its metrics with the primary and serves the cluster's sum. */
  clusterMetrics?: ClusterMetrics;
  /** In a cluster worker: carries realtime changes to (and from) the other workers. */
  realtimeRelay?: RealtimeRelay;
}

/** How a cluster worker is given its connections and names its realtime sessions. */
export interface WorkerServerOptions extends RuntimeOptions {
  /** Called once with the function that takes over a connection the primary accepted. */
  receiveConnections(adopt: (socket: Socket, head: Buffer) => void): void;
  /** The prefix of this worker's realtime session ids, by which the primary routes their requests. */
  sessionIdPrefix: string;
}

/** Opens the database, migrates it, and builds every service. Used by `serve` and `admin`. */
export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  let database: Database;
  const create = options.create ?? true;
  if (!create) requireDatabaseFile(config.database);
  try {
    database = openDatabase(config.database);
  } catch (error) {
    throw translateConnectError(error, config.database);
  }
  const metrics = new Metrics({ pool: () => database.poolStats(), processMetrics: true, cluster: options.clusterMetrics });
  try {
    if (!create) await requireFieldopsTables(database.knex, config.database);
    if (options.migrate ?? true) {
      const applied = await migrateToLatest(database.knex);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    }
  } catch (error) {
    await database.close();
    throw translateConnectError(error, config.database);
  }
  const hot = openHotReads(config.database, { onIdleError: (error) => logger.warn({ err: error }, 'hot-read connection lost') });
  const store = createStore(database, hot, changeLogHooks(clock, { dialect: database.dialect, retentionDays: config.idempotencyDays }));
  const idempotencyKeys = new KnexIdempotencyRepository(database.knex, database.dialect);
  const users = new UserService({ store, clock, passwordHashCost: config.passwordHashCost, commonPasswords: loadCommonPasswords() });
  const oauth = openOAuth(config, { store, clock, metrics });
  const eventTypes = new CatalogService(eventTypeKind, { store, clock });
  const patrols = new PatrolService({ store, clock });
  const choices = new ChoiceService({ store, clock });
  const sync = openSync({ database, store, choices, clock, logger, retentionDays: config.syncRetentionDays, metrics });
  const { files, sweeper: fileSweeper } = withRemovals(await openFileStore(config.fileStore, config.dataDir), { knex: database.knex, clock, logger, graceSeconds: config.fileGraceSeconds });
  const { uploads, sweep: uploadSweep } = await openUploads({ store, clock, logger, files, removals: fileSweeper, fileStore: config.fileStore, dataDir: config.dataDir, maxFileBytes: config.maxFileBytes, expiryHours: config.uploadExpiryHours });
  const services: Services = {
    uploads,
    store,
    oauth,
    users,
    patrolTypes: new CatalogService(patrolTypeKind, { store, clock }),
    choices,
    subjects: new SubjectService({ store, clock }),
    eventTypes,
    eventCategories: new EventCategoryService({ store, clock }),
    eventTypesV1: new EventTypeV1Service({ store, clock }),
    eventTypeMigration: new EventTypeMigrationService({ store, clock, eventTypes }),
    schemaLifecycle: new SchemaLifecycleService({ store, eventTypes, choices }),
    eventUsage: new EventUsageService({ store, eventTypes }),
    patrols,
    patrolNotes: new PatrolNoteService({ store, clock, patrols }),
    events: new EventService({ store, clock, choices, files, removals: fileSweeper, maxFileBytes: config.maxFileBytes }),
    patrolFiles: new PatrolFileService({ store, clock, files, patrols, maxFileBytes: config.maxFileBytes }),
    sensors: new SensorService({ store, clock, metrics }),
    files,
    uploadSlots: new UploadSlots(config.uploads),
    icons: new IconLibrary([path.join(config.dataDir, 'icons'), path.join(packageRoot(), 'static/icons')]),
    logger,
    bodyLimits: { jsonBytes: config.jsonBodyLimitBytes, formBytes: config.formBodyLimitBytes },
    trustProxy: config.trustProxy,
    trustProxyHops: config.trustProxyHops,
    metrics,
    metricsToken: config.metricsToken,
    responseCheck: config.checkResponses ? new ResponseChecker(createHttpAjv()) : null,
    apiProfile: config.apiProfile,
    compressMinBytes: config.compressMinBytes,
    startup: new StartupService({ store, clock }),
    ...openSubjectSide({ store, clock }),
    syncFeed: sync.feed,
    syncRepair: sync.repair,
    idempotency: new IdempotencyService({ repository: idempotencyKeys, clock }),
    push: { admission: new PushAdmission({ concurrency: config.push.concurrency }), budgetMs: config.push.budgetMs, bodyBytes: config.push.bodyBytes },
    realtime: new RealtimeHub(options.realtimeRelay ?? null),
    version: (JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version,
  };
  services.conflicts = new ConflictService({ store, clock, events: services.events, patrols });
  const admin = new AdminService({ store, users, clock, passwordHashCost: config.passwordHashCost, throttle: config.throttle, rightsChanged: () => oauth.invalidatePrincipals() });
  const close = async () => {
    await hot.close();
    await database.close();
  };
  const sweeper = new PatrolSweeper({ store, clock, patrols: services.patrols, logger });
  const idempotencySweep = new IdempotencySweep({ repository: idempotencyKeys, clock, logger });
  return { config, database, store, services, admin, sweeper, fileSweeper, syncRetention: sync.retention, syncBackfill: sync.backfill, idempotencySweep, uploadSweep, clock, close };
}

export interface RunningServer {
  url: string;
  port: number;
  runtime: Runtime;
  bootstrap: BootstrapResult;
  /** What the demo loader added (empty unless asked for and the tenant was empty). */
  demo: string[];
  /** Stops accepting connections, finishes in-flight requests, then closes the pool. */
  close(): Promise<void>;
}

/** What the one-time start-up work leaves: a bound port (answering 503) and a migrated, initialised database. */
export interface PreparedServer {
  listener: Listener;
  runtime: Runtime;
  bootstrap: BootstrapResult;
  demo: string[];
}

/**
 * Checks the data directory (and FIELDOPS_ADMIN_PASSWORD_FILE's) and binds the port first, then
 * opens the runtime, initialises an empty database, and serves. A start that cannot listen fails
 * before anything is written, so a generated admin password is only ever created by a start
 * that goes on to print it (or has written it to its file).
 */
export async function startServer(config: Config, options: RuntimeOptions = {}): Promise<RunningServer> {
  const prepared = await prepareServer(config, options);
  try {
    return serve(config, prepared);
  } catch (error) {
    throw await abandonPrepared(prepared, error);
  }
}

/**
 * The work done once per start, whatever the number of workers: checks, port, migrations,
 * first-start bootstrap and demo data. The port answers 503 meanwhile.
 */
export async function prepareServer(config: Config, options: RuntimeOptions = {}): Promise<PreparedServer> {
  checkDataDir(config.dataDir);
  await checkPasswordFileIfFirstStart(config, options.logger ?? createLogger(config.logLevel));
  const listener = await bindListener(config.port, config.host);
  let runtime: Runtime;
  try {
    runtime = await openRuntime(config, options);
  } catch (error) {
    await listener.close();
    throw error;
  }
  let bootstrap: BootstrapResult | null = null;
  try {
    bootstrap = await bootstrapDatabase(runtime);
    const demo = config.loadDemoData ? await loadDemoData({ services: runtime.services, admin: runtime.admin }, path.join(packageRoot(), 'fixtures/demo')) : [];
    return { listener, runtime, bootstrap, demo };
  } catch (error) {
    throw await abandonPrepared({ listener, runtime, bootstrap: bootstrap ?? { initialised: false, generatedAdminPassword: null, passwordKept: false }, demo: [] }, error);
  }
}

/**
 * FIELDOPS_ADMIN_PASSWORD_FILE is written only on a first start (the unit and the image keep it
 * set): an unwritable one fails that start before anything is migrated, and is only a warning
 * for a database already set up, which must not stop serving because of it.
 */
async function checkPasswordFileIfFirstStart(config: Config, logger: Logger): Promise<void> {
  if (!config.adminPasswordFile || config.adminPassword) return;
  try {
    checkAdminPasswordFile(config.adminPasswordFile);
  } catch (error) {
    if (!(await databaseIsSetUp(config.database))) throw error;
    logger.warn({ file: config.adminPasswordFile, reason: (error as Error).message }, 'FIELDOPS_ADMIN_PASSWORD_FILE cannot be written; only a first start writes it, and this database is set up');
  }
}

/**
 * The first-start set-up of an empty database (a no-op otherwise), as `serve` and `admin
 * --create` run it: a generated admin password goes to FIELDOPS_ADMIN_PASSWORD_FILE when set
 * (written before the set-up commits: if it cannot be, nothing is created), else it is returned
 * to be printed once.
 */
export function bootstrapDatabase(runtime: Runtime): Promise<BootstrapResult> {
  const { config } = runtime;
  const file = config.adminPasswordFile;
  return bootstrapEmptyDatabase(
    { store: runtime.store, users: runtime.services.users, clock: runtime.clock },
    { adminPassword: config.adminPassword, keepGeneratedPassword: file ? (password) => writeAdminPasswordFile(file, password) : undefined },
  );
}

/**
 * Releases a prepared start that will not serve (its port, its pool) and returns the error to
 * throw: the admin exists now, so a generated password travels with it rather than be lost.
 */
async function abandonPrepared(prepared: PreparedServer, error: unknown): Promise<unknown> {
  await stopBackgroundJobs(prepared.runtime);
  await prepared.listener.close();
  await prepared.runtime.close();
  return prepared.bootstrap.generatedAdminPassword ? new AdminCreatedError(error, prepared.bootstrap.generatedAdminPassword) : error;
}

/**
 * A cluster worker's start: the primary has already checked, migrated and bootstrapped, and it
 * accepts the connections (server/cluster/sticky.ts), so the worker binds nothing: it opens its
 * runtime without migrating, and serves the connections it is handed.
 */
export async function startWorkerServer(config: Config, options: WorkerServerOptions): Promise<RunningServer> {
  const listener = handedListener();
  options.receiveConnections(listener.adopt);
  let runtime: Runtime;
  try {
    runtime = await openRuntime(config, { ...options, migrate: false });
  } catch (error) {
    await listener.close();
    throw error;
  }
  const prepared = { listener, runtime, bootstrap: { initialised: false, generatedAdminPassword: null, passwordKept: false }, demo: [] };
  try {
    return serve(config, prepared, options.sessionIdPrefix);
  } catch (error) {
    throw await abandonPrepared(prepared, error);
  }
}

/** Wires the app onto a prepared listener and starts the background jobs. */
function serve(config: Config, prepared: PreparedServer, sessionIdPrefix?: string): RunningServer {
  const { listener, runtime, bootstrap, demo } = prepared;
  const app = createApp(runtime.services);
  startBackgroundJobs(runtime, config);
  const http = serveHttp(listener, app, runtime.services, config, sessionIdPrefix);
  let closing: Promise<void> | null = null;
  return {
    url: http.url,
    port: http.port,
    runtime,
    bootstrap,
    demo,
    close: () =>
      (closing ??= (async () => {
        await http.close();
        await stopBackgroundJobs(runtime);
        await runtime.close();
      })()),
  };
}

/** A start that failed after creating `admin` with a generated password: the password travels with the error. */
export class AdminCreatedError extends Error {
  constructor(
    readonly failure: unknown,
    readonly adminPassword: string,
  ) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
  }
}
