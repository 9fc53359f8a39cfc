import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import { ConflictError, InputError, NotFoundError } from '../errors.js';
import { noteWrittenRecord } from '../idempotency/claim-hook.js';
import { isUuid } from '../ids.js';
import { SUBJECTS_CATALOG } from '../model.js';
import type { Repositories, Store } from '../ports.js';
import { checkRange, readAssignmentBody, readProviderBody, readSourceBody } from './input.js';
import type { Assignment, ProviderRecord, SourceRecord, SubjectRecord, SubjectView } from './model.js';
import { recomputePositions } from './positions.js';
import { AMBIGUITY_HINTS, ambiguityMessage, chooseSource, readProviderName } from './source-choice.js';
import type { PageWindow } from './sources-ports.js';

/** The provider of sources created through the API without one (the original's default). */
export const DEFAULT_PROVIDER = 'default';

/**
 * Sources (collars, radios), their providers, and assignments: a source tracks a subject over
 * a time range; observations reach a subject through the assignments covering their time.
 * Sources need `*_source`; assignments need `change_source` to write (and `view_source` to
 * read). Any write that moves who a source tracks takes the `subjects` catalog lock and bumps
 * it, so that steady intake (which stamps that version) decides again, and recomputes the last
 * position of every subject it touched (positions.ts). A source named by manufacturer id
 * shared by several providers needs the provider (`provider`: key or id); else 400. Knows no HTTP.
 */
export class SourceService {
  constructor(protected readonly deps: { store: Store; clock: Clock }) {}

  // ---- sources ----

  async listSources(ctx: RequestContext, page: PageWindow): Promise<{ total: number; items: SourceRecord[] }> {
    const { tenantId } = requirePermission(ctx, 'view_source');
    return this.deps.store.repos.subjectSources.listSources(tenantId, page);
  }

  /** `provider` (a provider key or id, e.g. the `?provider=` query) picks among sources sharing a manufacturer id. */
  async getSource(ctx: RequestContext, idOrManufacturerId: string, provider?: string | null): Promise<SourceRecord> {
    const { tenantId } = requirePermission(ctx, 'view_source');
    return this.source(this.deps.store.repos, tenantId, idOrManufacturerId, undefined, readProviderName(provider));
  }

  /** `provider` is a provider key (created on first sight) or id; `default` when absent. */
  async createSource(ctx: RequestContext, body: unknown): Promise<SourceRecord> {
    const { tenantId } = requirePermission(ctx, 'add_source');
    const input = readSourceBody(body, true);
    return this.deps.store.transaction(async (repos) => {
      const now = this.deps.clock.now();
      const provider = (input.provider && (await repos.subjectSources.findProvider(tenantId, input.provider))) || (await repos.sensors.ensureProvider(tenantId, input.provider ?? DEFAULT_PROVIDER, 'api', now));
      const id = randomUUID();
      const existing = (await repos.subjectSources.findSourceCandidates(tenantId, [input.manufacturerId!])).get(input.manufacturerId!) ?? [];
      if (existing.some((source) => source.providerId === provider.id && source.manufacturerId === input.manufacturerId)) throw new ConflictError(`The provider already has a source "${input.manufacturerId}".`);
      await repos.subjectSources.insertSource({
        id, tenantId, providerId: provider.id, providerKey: provider.key, manufacturerId: input.manufacturerId!, sourceType: input.sourceType ?? 'tracking-device',
        modelName: input.modelName ?? '', subjectId: null, additional: input.additional ?? {}, createdAt: now, updatedAt: now,
      });
      return this.source(repos, tenantId, id);
    });
  }

  async patchSource(ctx: RequestContext, idOrManufacturerId: string, body: unknown, provider?: string | null): Promise<SourceRecord> {
    const { tenantId } = requirePermission(ctx, 'change_source');
    const { provider: _provider, ...patch } = readSourceBody(body, false);
    const providerName = readProviderName(provider);
    return this.deps.store.transaction(async (repos) => {
      const found = await this.source(repos, tenantId, idOrManufacturerId, undefined, providerName);
      const now = this.deps.clock.now();
      // Steady intake remembers sources by manufacturer id under the subjects catalog's version:
      // a rename moves the version, so the next batch for the old id looks its source up again.
      const renamed = patch.manufacturerId !== undefined && patch.manufacturerId !== found.manufacturerId;
      if (renamed) await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      await repos.subjectSources.updateSource(tenantId, found.id, patch, now);
      if (renamed) await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
      // Stored with an Idempotency-Key: a lost answer is re-read by id, not by the old manufacturer id.
      noteWrittenRecord('source', tenantId, found.id);
      return this.source(repos, tenantId, found.id);
    });
  }

  /**
   * The source with its observations and assignments (the original's warning: irreversible).
   * Its subjects' positions roll back to their newest fix from another source, or go.
   */
  async deleteSource(ctx: RequestContext, idOrManufacturerId: string, provider?: string | null): Promise<void> {
    const { tenantId } = requirePermission(ctx, 'delete_source');
    const providerName = readProviderName(provider);
    await this.deps.store.transaction(async (repos) => {
      const found = await this.source(repos, tenantId, idOrManufacturerId, undefined, providerName);
      const now = this.deps.clock.now();
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const touched = new Set(await repos.subjectSources.subjectsPositionedBy(tenantId, found.id));
      for (const { subject } of await repos.subjectSources.subjectsOfSource(tenantId, found.id)) touched.add(subject.id);
      await repos.subjectSources.deleteSource(tenantId, found.id);
      await recomputePositions(repos, tenantId, touched, now);
      await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
    });
  }

  /** Each subject once, newest assignment first, with its status. */
  async subjectsOfSource(ctx: RequestContext, idOrManufacturerId: string, provider?: string | null): Promise<SubjectView[]> {
    const { tenantId } = requirePermission(ctx, 'view_source');
    const { repos } = this.deps.store;
    const found = await this.source(repos, tenantId, idOrManufacturerId, undefined, readProviderName(provider));
    const subjects = new Map<string, SubjectRecord>();
    for (const { subject } of await repos.subjectSources.subjectsOfSource(tenantId, found.id)) if (!subjects.has(subject.id)) subjects.set(subject.id, subject);
    return repos.subjectSources.subjectViews(tenantId, [...subjects.values()]);
  }

  async sourcesOfSubject(ctx: RequestContext, subjectId: string): Promise<Array<{ source: SourceRecord; assignment: Assignment }>> {
    const { tenantId } = requirePermission(ctx, 'view_source');
    const subject = await this.subject(this.deps.store.repos, tenantId, subjectId);
    return this.deps.store.repos.subjectSources.sourcesOfSubject(tenantId, subject.id);
  }

  // ---- providers ----

  async listProviders(ctx: RequestContext, page: PageWindow): Promise<{ total: number; items: ProviderRecord[] }> {
    const { tenantId } = requirePermission(ctx, 'view_source');
    return this.deps.store.repos.subjectSources.listProviders(tenantId, page);
  }

  async createProvider(ctx: RequestContext, body: unknown): Promise<ProviderRecord> {
    const { tenantId } = requirePermission(ctx, 'add_source');
    const input = readProviderBody(body, true);
    return this.deps.store.transaction(async (repos) => {
      if (await repos.subjectSources.findProvider(tenantId, input.key!)) throw new ConflictError(`A provider "${input.key}" exists.`);
      const now = this.deps.clock.now();
      const provider: ProviderRecord = {
        id: randomUUID(), tenantId, key: input.key!, providerType: 'api', displayName: input.displayName ?? input.key!, additional: input.additional ?? {},
        lastHeartbeat: null, lastHeartbeatAt: null, createdAt: now, updatedAt: now,
      };
      await repos.subjectSources.insertProvider(provider);
      return provider;
    });
  }

  async patchProvider(ctx: RequestContext, id: string, body: unknown): Promise<ProviderRecord> {
    const { tenantId } = requirePermission(ctx, 'change_source');
    const { key: _key, ...patch } = readProviderBody(body, false);
    return this.deps.store.transaction(async (repos) => {
      const found = isUuid(id) ? await repos.subjectSources.findProvider(tenantId, id) : null;
      if (!found || found.id !== id.toLowerCase()) throw new NotFoundError('No such source provider.');
      await repos.subjectSources.updateProvider(tenantId, found.id, patch, this.deps.clock.now());
      return (await repos.subjectSources.findProvider(tenantId, found.id))!;
    });
  }

  // ---- assignments ----

  /** `subjects`/`sources`: comma-separated ids (the async client's filters). */
  async listAssignments(ctx: RequestContext, filter: { subjects?: string; sources?: string }, page: PageWindow): Promise<{ total: number; items: Assignment[] }> {
    const { tenantId } = requirePermission(ctx, 'view_source');
    const ids = (raw: string | undefined) => (raw ? raw.split(',').map((id) => id.trim()).filter(isUuid).map((id) => id.toLowerCase()) : null);
    return this.deps.store.repos.subjectSources.listAssignments(tenantId, { subjectIds: ids(filter.subjects), sourceIds: ids(filter.sources) }, page);
  }

  async assignmentsOfSubject(ctx: RequestContext, subjectId: string): Promise<Assignment[]> {
    return (await this.sourcesOfSubject(ctx, subjectId)).map((entry) => entry.assignment);
  }

  /** `lower` defaults to now, `upper` to open ended. */
  async createAssignment(ctx: RequestContext, body: unknown): Promise<Assignment> {
    const { tenantId } = requirePermission(ctx, 'change_source');
    const input = readAssignmentBody(body, true);
    return this.deps.store.transaction(async (repos) => {
      const now = this.deps.clock.now();
      const subject = await this.subject(repos, tenantId, input.subject!, 'subject');
      const source = await this.source(repos, tenantId, input.source!, 'source');
      const lower = input.rangeLower ?? now;
      const upper = input.rangeUpper ?? null;
      checkRange(lower, upper);
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const others = await this.overlapping(repos, tenantId, source.id, lower, upper, null);
      // The collar moved: the open assignment that started before ends where this one starts.
      const moving = others.filter((a) => a.rangeUpper === null && a.rangeLower < lower);
      if (moving.length < others.length) throw overlapError(others.find((a) => !moving.includes(a))!);
      for (const a of moving) await repos.subjectSources.updateAssignment(tenantId, a.id, { rangeUpper: lower }, now);
      const assignment: Assignment = { id: randomUUID(), tenantId, subjectId: subject.id, sourceId: source.id, rangeLower: lower, rangeUpper: upper, additional: input.additional ?? {}, createdAt: now, updatedAt: now };
      await repos.subjectSources.insertAssignment(assignment);
      await this.moved(repos, tenantId, source.id, now, { lower, upper }, [subject.id, ...moving.map((a) => a.subjectId)]);
      return assignment;
    });
  }

  /** Moves the range, or gives the assignment to another `subject`; its source stays (delete and create to change it). */
  async patchAssignment(ctx: RequestContext, id: string, body: unknown): Promise<Assignment> {
    const { tenantId } = requirePermission(ctx, 'change_source');
    const input = readAssignmentBody(body, false);
    return this.deps.store.transaction(async (repos) => {
      const found = await this.assignment(repos, tenantId, id);
      const now = this.deps.clock.now();
      const subjectId = input.subject === undefined ? found.subjectId : (await this.subject(repos, tenantId, input.subject, 'subject')).id;
      // Clients echo the source back: the same source (by id or manufacturer id) is no change.
      if (input.source !== undefined && input.source.toLowerCase() !== found.sourceId) {
        const named = (await repos.subjectSources.findSourceCandidates(tenantId, [input.source])).get(input.source) ?? [];
        if (!named.some((source) => source.id === found.sourceId)) throw InputError.field('source', 'read_only', 'An assignment keeps its source.', ['Delete the assignment and create one for the other source.']);
      }
      const lower = input.rangeLower ?? found.rangeLower;
      const upper = input.rangeUpper === undefined ? found.rangeUpper : input.rangeUpper;
      checkRange(lower, upper);
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const [other] = await this.overlapping(repos, tenantId, found.sourceId, lower, upper, found.id);
      if (other) throw overlapError(other);
      const newSubject = subjectId === found.subjectId ? undefined : subjectId;
      await repos.subjectSources.updateAssignment(tenantId, found.id, { subjectId: newSubject, rangeLower: input.rangeLower, rangeUpper: input.rangeUpper, additional: input.additional }, now);
      // The fixes of both the old and the new range may change subject.
      const span = { lower: Math.min(lower, found.rangeLower), upper: upper === null || found.rangeUpper === null ? null : Math.max(upper, found.rangeUpper) };
      await this.moved(repos, tenantId, found.sourceId, now, span, [found.subjectId, subjectId]);
      return (await repos.subjectSources.findAssignment(tenantId, found.id))!;
    });
  }

  async deleteAssignment(ctx: RequestContext, id: string): Promise<void> {
    const { tenantId } = requirePermission(ctx, 'change_source');
    await this.deps.store.transaction(async (repos) => {
      const found = await this.assignment(repos, tenantId, id);
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      await repos.subjectSources.deleteAssignment(tenantId, found.id);
      await this.moved(repos, tenantId, found.sourceId, this.deps.clock.now(), { lower: found.rangeLower, upper: found.rangeUpper }, [found.subjectId]);
    });
  }

  /**
   * Who the source tracks now, its observations' subjects, and the last positions of `subjects`
   * (every subject that gained or lost an assignment's time) follow its assignments; steady
   * intake decides again.
   */
  private async moved(repos: Repositories, tenantId: string, sourceId: string, now: number, span: { lower: number; upper: number | null }, subjects: string[]): Promise<void> {
    await repos.subjectSources.refreshCurrentSubject(tenantId, sourceId, now);
    await repos.subjectSources.reattribute(tenantId, sourceId, span);
    await recomputePositions(repos, tenantId, subjects, now);
    await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
  }

  /** The source's assignments (other than `except`) that meet [lower, upper). */
  private async overlapping(repos: Repositories, tenantId: string, sourceId: string, lower: number, upper: number | null, except: string | null): Promise<Assignment[]> {
    const { items } = await repos.subjectSources.listAssignments(tenantId, { subjectIds: null, sourceIds: [sourceId] }, { offset: 0, limit: 1000 });
    return items.filter((a) => a.id !== except && (upper === null || a.rangeLower < upper) && (a.rangeUpper === null || lower < a.rangeUpper));
  }

  /**
   * In a body (`field` given), an unknown id is a 400 on that field; in a path, a 404. A
   * manufacturer id that `provider` leaves naming several sources is a 400 either way.
   */
  private async source(repos: Repositories, tenantId: string, key: string, field?: string, provider: string | null = null): Promise<SourceRecord> {
    const candidates = key.length <= 200 ? (await repos.subjectSources.findSourceCandidates(tenantId, [key])).get(key) : undefined;
    const choice = chooseSource(candidates, provider);
    if (choice.kind === 'found') return choice.source;
    if (choice.kind === 'ambiguous') throw InputError.field(field ?? 'source', 'ambiguous_source', ambiguityMessage(key, choice.providers), [...(field ? AMBIGUITY_HINTS.idOnly : AMBIGUITY_HINTS.path)]);
    if (field) throw InputError.field(field, 'unknown_source', `No source "${key.slice(0, 60)}"${provider === null ? '' : ` of provider "${provider.slice(0, 60)}"`}.`);
    throw new NotFoundError('No such source.');
  }

  private async subject(repos: Repositories, tenantId: string, id: string, field?: string): Promise<SubjectRecord> {
    const [found] = isUuid(id) ? await repos.subjectSources.findSubjects(tenantId, [id.toLowerCase()]) : [];
    if (found) return found;
    if (field) throw InputError.field(field, 'unknown_subject', `No subject "${id.slice(0, 60)}".`);
    throw new NotFoundError('No such subject.');
  }

  private async assignment(repos: Repositories, tenantId: string, id: string): Promise<Assignment> {
    const found = await repos.subjectSources.findAssignment(tenantId, id);
    if (!found) throw new NotFoundError('No such subject source.');
    return found;
  }
}

/** Two assignments of one source over the same time: which subject a fix belongs to would be ambiguous. */
function overlapError(other: Assignment): ConflictError {
  const end = other.rangeUpper === null ? 'open ended' : `until ${new Date(other.rangeUpper).toISOString()}`;
  return new ConflictError(`The source is already assigned (assignment ${other.id}, from ${new Date(other.rangeLower).toISOString()}, ${end}) over part of this range.`);
}
