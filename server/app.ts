import Koa from 'koa';
import type { SourceService } from './domain/subjects/sources.js';
import type { TrackService } from './domain/tracks/service.js';
import type { EventExportService } from './domain/events/export.js';
import type { MessageService } from './domain/messages/service.js';
import type { FeatureService } from './domain/features/service.js';
import type { EventUsageService } from './domain/events/usage.js';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { TusUploads } from './storage/tus/server.js';
import type { Store } from './domain/ports.js';
import type { OAuthService } from './domain/oauth/service.js';
import type { UserService } from './domain/users/service.js';
import type { CatalogService } from './domain/catalog/service.js';
import type { ChoiceService } from './domain/choices/service.js';
import type { SubjectService } from './domain/subjects/service.js';
import type { ApiProfile, EventType, PatrolType } from './domain/model.js';
import type { EventCategoryService } from './domain/event-types/categories.js';
import type { EventTypeMigrationService } from './domain/event-types/migration.js';
import type { EventTypeV1Service } from './domain/event-types/v1.js';
import type { SchemaLifecycleService } from './domain/catalog/lifecycle.js';
import type { PatrolService } from './domain/patrols/service.js';
import type { PatrolNoteService } from './domain/patrols/notes.js';
import type { PatrolFileService } from './domain/patrols/files.js';
import type { EventService } from './domain/events/service.js';
import type { SensorService } from './domain/sensors/service.js';
import type { StartupService } from './domain/startup/service.js';
import type { SyncFeedService } from './domain/sync/feed.js';
import type { SyncRepairService } from './domain/sync/feed-repair.js';
import type { FileStore } from './storage/file-store.js';
import type { UploadSlots } from './http/upload-slots.js';
import { authenticate } from './http/middleware/authenticate.js';
import { type BodyLimits, parseBody } from './http/middleware/body.js';
import { errorMapping } from './http/middleware/errors.js';
import { requestIdAndLog } from './http/middleware/request-id.js';
import { routeTable } from './http/routes/index.js';
import { requestMetrics } from './http/middleware/metrics.js';
import { compressResponses } from './http/middleware/compress.js';
import { validateRequest } from './http/middleware/validate.js';
import { idempotencyStep } from './http/middleware/idempotency.js';
import type { IdempotencyService } from './domain/idempotency/service.js';
import type { ConflictService } from './domain/merge/conflicts.js';
import type { PushParts } from './http/routes/push.js';
import { fieldopsRequestRule } from './http/presentation/request-rules.js';
import { presentProfile } from './http/presentation/middleware.js';
import { publishChanges } from './http/realtime/publish.js';
import type { RealtimeHub } from './http/realtime/hub.js';
import type { ResponseChecker } from './http/openapi/response-check.js';
import { createHttpAjv } from './http/schemas/ajv.js';
import type { Metrics } from './metrics/metrics.js';
import type { AppState, Middleware } from './http/state.js';
import type { IconLibrary } from './storage/icons.js';

/** Everything the HTTP layer needs, built by the composition root (server/main.ts). */
export interface Services {
  store: Store;
  oauth: OAuthService;
  users: UserService;
  patrolTypes: CatalogService<PatrolType>;
  choices: ChoiceService;
  subjects: SubjectService;
  eventTypes: CatalogService<EventType>;
  eventCategories: EventCategoryService;
  eventTypesV1: EventTypeV1Service;
  eventTypeMigration: EventTypeMigrationService;
  /** Issue 28: as-of, restore, drafts and publish of v2 event types. */
  schemaLifecycle: SchemaLifecycleService;
  patrols: PatrolService;
  patrolNotes: PatrolNoteService;
  patrolFiles: PatrolFileService;
  events: EventService;
  sensors: SensorService;
  /** Content-addressed uploads under the data directory (camera-trap images; patrol files). */
  files: FileStore;
  /** Concurrent uploads per principal and in total (429 beyond). */
  uploadSlots: UploadSlots;
  /** Catalog icons: the site's folder, then the built-in set. */
  icons: IconLibrary;
  logger: Logger;
  bodyLimits: BodyLimits;
  trustProxy: boolean;
  /** Proxies that append to X-Forwarded-For (the client address is that many from the right). */
  trustProxyHops?: number;
  metrics: Metrics;
  /** The static bearer token that may read /metrics (FIELDOPS_METRICS_TOKEN), if any. */
  metricsToken: string | null;
  /** Checks every response against its described schema (tests); null in production. */
  responseCheck: ResponseChecker | null;
  /** What the original apps read to start (CONTRACT §11). */
  startup: StartupService;
  /** Realtime sessions (socket.io) that changes are pushed to. */
  realtime: RealtimeHub;
  /** The sync feed's read side and its repair/explain reads (issue 25, docs/sync.md). */
  syncFeed: SyncFeedService;
  syncRepair: SyncRepairService;
  /** The package version (the `status` endpoint reports it). */
  version: string;
  /** Stored answers of record writes sent with an Idempotency-Key (issue 26); without it the header is ignored. */
  idempotency?: IdempotencyService;
  /** Conflicts kept with both values and record history (issue 26 §3); without it those routes are absent. */
  conflicts?: ConflictService;
  /** The batched push (issue 26 §4): its admission and limits; without it the route is absent. */
  push?: PushParts;
  /** Resumable uploads (tus 1.0, issue 26 §6); without it those routes are absent. */
  uploads?: TusUploads;
  /** Response profile of clients that name none (CONTRACT §11). */
  apiProfile: ApiProfile;
  /** Issue 27: sources, providers, assignments; tracks and tracking exports; the events export; messages; feature sets. */
  sources: SourceService;
  tracks: TrackService;
  eventExports: EventExportService;
  messages: MessageService;
  features: FeatureService;
  /** Issue 28: usage summaries of stored event details. */
  eventUsage: EventUsageService;
  /** JSON and text bodies larger than this are compressed (FIELDOPS_COMPRESS_MIN_BYTES; default 1024). */
  compressMinBytes?: number;
}

/** Builds the Koa application. It never listens: tests and main decide how to serve it. */
export function createApp(services: Services): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = services.trustProxy;
  // ctx.ip (the only way the server reads a client address) is then the X-Forwarded-For entry
  // `trustProxyHops` from the right: entries further left are written by the client.
  app.maxIpsCount = services.trustProxyHops ?? 1;
  // Errors are logged by our middleware with the request id; Koa's default would log again.
  app.silent = true;
  const router = new Router<AppState>();
  const auth = authenticate(services.oauth);
  const ajv = createHttpAjv();
  const routes = routeTable(services);
  // Sensor batches refused by their schema never reach the intake: count them here.
  const onBatchRejected = (items: number) => services.metrics.observations('rejected', items);
  for (const route of routes) {
    const steps: Middleware[] = [(ctx, next) => ((ctx.state.routeName = route.name), next())];
    if (route.authenticate) steps.push(auth);
    if (route.admit) steps.push(route.admit);
    if (route.body) steps.push(parseBody(route.body, route.bodyBytes ? { ...services.bodyLimits, jsonBytes: route.bodyBytes } : services.bodyLimits));
    const validate = validateRequest(route, ajv, { onBatchRejected, requestRule: fieldopsRequestRule(route.name, services.apiProfile) });
    if (validate) steps.push(validate);
    const idempotent = route.idempotent;
    if (idempotent && services.idempotency) {
      const readBack = routes.find((candidate) => candidate.name === idempotent.readBack)?.handler ?? null;
      steps.push(idempotencyStep({ ...route, idempotent }, { service: services.idempotency, readBack }));
    }
    steps.push(async (ctx) => route.handler(ctx));
    for (const path of route.paths) router.register(path, [route.method], steps as never, { name: route.name });
  }
  app.use(requestIdAndLog(services.logger) as never);
  app.use(requestMetrics(services.metrics) as never);
  // Outside the profile step and the error mapping: it compresses the final body.
  app.use(compressResponses({ minBytes: services.compressMinBytes ?? 1024 }) as never);
  // Outside the response check: handlers are checked against their (fieldops) description.
  app.use(presentProfile(services.apiProfile) as never);
  app.use(publishChanges(services.realtime) as never);
  if (services.responseCheck) app.use(services.responseCheck.middleware(routes) as never);
  app.use(errorMapping as never);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
