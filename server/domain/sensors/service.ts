import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import { InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Observation } from '../model.js';
import type { Store, SubjectWithStatus } from '../ports.js';
import { parseIsoWithOffset } from '../time-input.js';
import { CAMERA_TRAP_MAX_IMAGE_BYTES, IMAGE_FIELD, type IncomingFile, fileCameraTrapReport, readCameraTrapForm } from './camera-trap.js';
import { exifTakenAt } from './exif-time.js';
import { SteadyTargets } from './steady-targets.js';
import { type IntakeDefaults, type IntakeResult, type SteadyOutcome, intakeTarget, storeObservations, storeSteadyBatch } from './intake.js';
import { type ItemIssue, readItems, readObservation, throwItemIssues } from './observation-input.js';
import { readRadioAgentBatch } from './radioagent.js';
import { readPostedObservations, storePostedObservations } from './posted.js';
import { type ObservationQuery, readObservationFilter } from './reads.js';

export { CAMERA_TRAP_MAX_IMAGE_BYTES, IMAGE_FIELD };

const PROVIDER_KEY = /^[^\u0000-\u001f\u007f]{1,100}$/;
/** Path types of the generic intake: a slug. Anything else is not a route (404). */
const PROVIDER_TYPE = /^[a-z0-9][a-z0-9_-]{0,49}$/i;

/** What a provider type fills in when an item leaves it out; other types use their own name. */
function defaultsFor(providerType: string): IntakeDefaults {
  if (providerType === 'radioagent') return { providerType, sourceType: 'gps-radio', subjectSubtype: 'ranger' };
  // The original's default subtype is `ranger` (issue 27).
  if (providerType === 'gps-radio') return { providerType, sourceType: 'tracking-device', subjectSubtype: 'ranger' };
  return { providerType, sourceType: providerType.slice(0, 50), subjectSubtype: 'ranger' };
}

/** Counts observations by outcome (injected by the composition root; a no-op by default). */
export interface SensorMetrics {
  observations(outcome: 'created' | 'duplicate' | 'rejected', count: number): void;
  steadyBatch(outcome: SteadyOutcome): void;
}

const NO_METRICS: SensorMetrics = { observations: () => undefined, steadyBatch: () => undefined };

export type RadioAgentResult = { kind: 'heartbeat'; echo: Record<string, unknown> } | { kind: 'batch'; result: IntakeResult & { heartbeats: number } };

/**
 * Sensor intake (CONTRACT §10) and its read side. Every intake request is stored entirely or
 * not at all: one transaction, or for a steady stream one atomic write. Writers need `add_observation`; observations are
 * read with `view_observation`, subjects with `view_subject`. Everything is the caller's tenant.
 */
export class SensorService {
  private readonly metrics: SensorMetrics;
  /** What steady streams were decided on, per provider (this process's; see storeSteadyBatch). */
  private readonly steadyTargets = new SteadyTargets();

  constructor(private readonly deps: { store: Store; clock: Clock; metrics?: SensorMetrics }) {
    this.metrics = deps.metrics ?? NO_METRICS;
  }

  /** Created and duplicate counts of a committed intake; every item of a refused batch is rejected. */
  private count(result: IntakeResult): void {
    this.metrics.observations('created', result.created);
    this.metrics.observations('duplicate', result.duplicates);
  }

  /** 401/403 unless the caller may record observations (checked again by each intake method). */
  authorizeIntake(ctx: RequestContext): void {
    requirePermission(ctx, 'add_observation');
  }

  /** gps-radio and the generic `/sensors/<type>/<key>/status`: one observation or a batch. */
  async recordStatus(ctx: RequestContext, providerType: string, providerKey: string, body: unknown): Promise<IntakeResult> {
    const { tenantId } = requirePermission(ctx, 'add_observation');
    if (!PROVIDER_TYPE.test(providerType)) throw new NotFoundError(`No sensor type "${providerType.slice(0, 60)}".`);
    checkProviderKey(providerKey);
    const { items, pointer } = readItems(body);
    const issues: ItemIssue[] = [];
    const observations = items.map((raw, index) => readObservation(raw, index, pointer(index), issues));
    if (issues.length > 0) this.metrics.observations('rejected', items.length);
    throwItemIssues(issues, items.length);
    const valid = observations.filter((o) => o !== null);
    const defaults = defaultsFor(providerType);
    // A steady stream needs no transaction (see storeSteadyBatch); anything new takes one.
    const result = (await storeSteadyBatch(this.deps.store.repos, tenantId, providerKey, valid, this.deps.clock.now(), this.steadyTargets, (outcome) => this.metrics.steadyBatch(outcome))) ??
      (await this.deps.store.transaction(async (repos) => {
        const now = this.deps.clock.now();
        return storeObservations(repos, await intakeTarget(repos, tenantId, providerKey, valid, defaults, now), valid, defaults, now);
      }));
    this.count(result);
    return result;
  }

  /** Radio agents: observations as above, and heartbeats kept as the provider's latest status. */
  async recordRadioAgent(ctx: RequestContext, providerKey: string, body: unknown): Promise<RadioAgentResult> {
    const { tenantId } = requirePermission(ctx, 'add_observation');
    checkProviderKey(providerKey);
    let batch: ReturnType<typeof readRadioAgentBatch>;
    try {
      batch = readRadioAgentBatch(body);
    } catch (error) {
      // Every message of a refused batch counts as rejected (heartbeats included).
      if (error instanceof InputError) this.metrics.observations('rejected', Array.isArray(body) ? body.length : 1);
      throw error;
    }
    const outcome = await this.deps.store.transaction(async (repos): Promise<RadioAgentResult> => {
      const now = this.deps.clock.now();
      const defaults = defaultsFor('radioagent');
      const target = await intakeTarget(repos, tenantId, providerKey, batch.observations, defaults, now);
      const latest = batch.heartbeats.at(-1);
      if (latest) await repos.sensors.recordHeartbeat(target.provider.id, latest.message, now);
      if (batch.single && latest) return { kind: 'heartbeat', echo: latest.message };
      const result = batch.observations.length
        ? await storeObservations(repos, target, batch.observations, defaults, now)
        : { received: 0, created: 0, duplicates: 0 };
      return { kind: 'batch', result: { ...result, received: result.received + batch.heartbeats.length, heartbeats: batch.heartbeats.length } };
    });
    if (outcome.kind === 'batch') this.count({ ...outcome.result, received: outcome.result.received - outcome.result.heartbeats });
    return outcome;
  }

  /**
   * A camera-trap image with its form. The time is the form's `time`, else the image's EXIF
   * DateTimeOriginal, else now. The image must be an image (sniffed, not as declared).
   */
  async reportCameraTrap(ctx: RequestContext, providerKey: string, fields: Record<string, string[]>, image: IncomingFile | null, filename: string) {
    const principal = requirePermission(ctx, 'add_observation');
    checkProviderKey(providerKey);
    const form = readCameraTrapForm(fields);
    if (!image) throw InputError.field(IMAGE_FIELD, 'required', `The image is required, as a file in "${IMAGE_FIELD}".`);
    if (!image.contentType.startsWith('image/')) {
      throw InputError.field(IMAGE_FIELD, 'invalid_image', `The file is not an image (its content is ${image.contentType}).`, ['Send a JPEG, PNG, HEIC, WebP, GIF, TIFF or BMP image.']);
    }
    const time = form.time ?? (await exifTakenAt(image.tempPath)) ?? this.deps.clock.now();
    // Into the store before the transaction: an upload (to a bucket, say) must not hold a
    // transaction open, nor SQLite's single writer. The bytes of a refused report are queued for
    // removal when the upload's lease ends, unless other rows refer to them (leased-store.ts).
    const stored = { sha256: image.sha256, size: image.size, contentType: image.contentType, path: (await image.commit()).path };
    return this.deps.store.transaction(async (repos) => {
      const now = this.deps.clock.now();
      const provider = await repos.sensors.ensureProvider(principal.tenantId, providerKey, 'camera-trap', now);
      return fileCameraTrapReport(repos, principal, { providerId: provider.id, providerKey, form, time, image: stored, filename }, now);
    });
  }

  /** `POST observations` (posted.ts): the stored observations, and whether the body was one object. */
  async postObservations(ctx: RequestContext, body: unknown): Promise<{ created: number; single: boolean; observations: Observation[] }> {
    const { tenantId } = requirePermission(ctx, 'add_observation');
    const { items, single } = readPostedObservations(body);
    const result = await this.deps.store.transaction((repos) => storePostedObservations(repos, tenantId, items, this.deps.clock.now()));
    this.metrics.observations('created', result.created);
    this.metrics.observations('duplicate', items.length - result.created);
    return { ...result, single };
  }

  async listObservations(ctx: RequestContext, query: ObservationQuery, page: { offset: number; limit: number }): Promise<{ total: number; items: Observation[] }> {
    const { tenantId } = requirePermission(ctx, 'view_observation');
    const filter = readObservationFilter(query);
    const { observations } = this.deps.store.repos;
    const [total, items] = await Promise.all([observations.count(tenantId, filter), observations.list(tenantId, filter, page)]);
    return { total, items };
  }

  /** With `updatedSince` (ISO 8601): only subjects changed, or with a newer position, since then (incremental pulls). */
  async listSubjects(ctx: RequestContext, includeInactive: boolean, updatedSince?: string): Promise<SubjectWithStatus[]> {
    const { tenantId } = requirePermission(ctx, 'view_subject');
    let since: number | null = null;
    if (updatedSince !== undefined && updatedSince !== '') {
      since = parseIsoWithOffset(updatedSince);
      if (since === null) throw InputError.field('updated_since', 'invalid', 'updated_since is not an ISO 8601 date-time with an offset.', ['For example 2026-11-20T10:00:00+00:00.']);
    }
    return this.deps.store.repos.sensorSubjects.listWithStatus(tenantId, includeInactive, since);
  }

  async getSubject(ctx: RequestContext, id: string): Promise<SubjectWithStatus> {
    const { tenantId } = requirePermission(ctx, 'view_subject');
    const found = isUuid(id) ? await this.deps.store.repos.sensorSubjects.findWithStatus(tenantId, id.toLowerCase()) : null;
    if (!found) throw new NotFoundError('No such subject.');
    return found;
  }
}

function checkProviderKey(key: string): void {
  if (!PROVIDER_KEY.test(key)) throw InputError.field('provider_key', 'invalid', 'A provider key is 1 to 100 printable characters.', ['For example /sensors/gps-radio/acme-collars/status.']);
}
