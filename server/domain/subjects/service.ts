import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { strongEtag, type Validators } from '../catalog/etag.js';
import { type Subject, SUBJECTS_CATALOG } from '../model.js';
import type { Store } from '../ports.js';
import { InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import { parseIsoWithOffset } from '../time-input.js';
import { subjectTypeFor } from '../sensors/subjects.js';
import type { SubjectListFilter, SubjectRecord, SubjectView } from './model.js';
import { readSubjectBody, readSubjectRefs } from './input.js';

export interface NewSubject {
  name: string;
  subjectType?: string;
  subjectSubtype?: string;
  additional?: Record<string, unknown>;
  groups?: Array<{ name: string; patrolLeaders?: boolean }>;
}

/**
 * Subjects and subject groups, and the tracked-by schema built from them (CONTRACT §7). Every
 * change bumps the tenant's `subjects` catalog version, from which tracked-by ETags derive.
 */
export class SubjectService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /**
   * Salted with the caller (user, profile header, permissions): the body depends on who asks.
   * One small read: no subject is loaded to decide a 304.
   */
  async trackedByValidators(ctx: RequestContext, profileHeader: string | undefined): Promise<Validators> {
    const principal = requirePermission(ctx, 'view_patrol', 'view_patroltype', 'view_subject');
    const { version } = await this.deps.store.repos.catalog.version(principal.tenantId, SUBJECTS_CATALOG);
    const who = principal.kind === 'user' ? principal.user.id : `app:${principal.client.id}`;
    const rights = principal.isSuperuser ? '*' : [...principal.permissions].sort().join(',');
    return { etag: strongEtag('trackedby', principal.tenantId, version, who, profileHeader ?? '', rights) };
  }

  async patrolLeaders(ctx: RequestContext): Promise<Subject[]> {
    const principal = requirePermission(ctx, 'view_patrol', 'view_patroltype', 'view_subject');
    const viewer = principal.isSuperuser || principal.kind === 'application' ? null : actingUser(principal)!.id;
    return this.deps.store.repos.subjects.patrolLeaders(principal.tenantId, viewer);
  }

  /** Creates a subject (and its groups) in a tenant: demo data, admin tools and sensor intake. */
  async create(tenantId: string, input: NewSubject): Promise<Subject> {
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const now = this.deps.clock.now();
      const subject: Subject = {
        id: randomUUID(),
        tenantId,
        name: input.name,
        subjectType: input.subjectType ?? 'person',
        subjectSubtype: input.subjectSubtype ?? 'ranger',
        isActive: true,
        additional: input.additional ?? {},
        createdAt: now,
        updatedAt: now,
        revision: 1,
      };
      await repos.subjects.insertSubject(subject);
      for (const group of input.groups ?? []) {
        const groupId = await repos.subjects.ensureGroup(tenantId, group.name, group.patrolLeaders ?? false, now);
        await repos.subjects.addToGroup(groupId, subject.id);
      }
      await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
      // Each group joined moved the revision: answer the subject as stored.
      return (await repos.subjects.findMany(tenantId, [subject.id]))[0] ?? subject;
    });
  }

  /** Lets a user view a subject group (and so its members in the tracked-by schema). */
  async allowUserToViewGroup(tenantId: string, userId: string, groupName: string): Promise<void> {
    await this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const now = this.deps.clock.now();
      const groupId = await repos.subjects.ensureGroup(tenantId, groupName, false, now);
      await repos.subjects.allowUserToView(userId, groupId);
      await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
    });
  }

  // ---- the subject side (issue 27): the original's subject API ----

  /** One page of subjects (`withTotal`: the count too, for `{count, next, previous, results}`). */
  async list(ctx: RequestContext, query: SubjectQuery, page: { offset: number; limit: number }, withTotal: boolean): Promise<{ total: number | null; items: SubjectView[] }> {
    const { tenantId } = requirePermission(ctx, 'view_subject');
    return this.deps.store.repos.subjectSources.listSubjects(tenantId, readSubjectFilter(query), page, withTotal);
  }

  async get(ctx: RequestContext, id: string): Promise<SubjectView> {
    const { tenantId } = requirePermission(ctx, 'view_subject');
    return this.view(this.deps.store.repos, tenantId, id);
  }

  /** `POST subjects`: subtype `ranger` unless given; the type follows from the subtype unless given. */
  async createSubject(ctx: RequestContext, body: unknown): Promise<SubjectView> {
    const { tenantId } = requirePermission(ctx, 'add_subject');
    const input = readSubjectBody(body, true);
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const now = this.deps.clock.now();
      const subtype = input.subjectSubtype ?? 'ranger';
      const subject: SubjectRecord = {
        id: randomUUID(), tenantId, name: input.name!, subjectType: input.subjectType ?? subjectTypeFor(subtype), subjectSubtype: subtype,
        isActive: input.isActive ?? true, additional: input.additional ?? {}, createdAt: now, updatedAt: now, revision: 1,
        commonName: input.commonName ?? null, sex: input.sex ?? null, region: input.region ?? null, country: input.country ?? null, hex: input.hex ?? null,
      };
      await repos.subjectSources.insertSubject(subject);
      for (const group of input.groups ?? []) await repos.subjects.addToGroup(await repos.subjects.ensureGroup(tenantId, group, false, now), subject.id);
      await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
      return this.view(repos, tenantId, subject.id);
    });
  }

  async patchSubject(ctx: RequestContext, id: string, body: unknown): Promise<SubjectView> {
    const { tenantId } = requirePermission(ctx, 'change_subject');
    const { groups, ...patch } = readSubjectBody(body, false);
    return this.deps.store.transaction(async (repos) => {
      const found = await this.view(repos, tenantId, id);
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const now = this.deps.clock.now();
      // A new subtype without a type moves the type with it, as the intake does.
      if (patch.subjectSubtype !== undefined && patch.subjectType === undefined) patch.subjectType = subjectTypeFor(patch.subjectSubtype);
      await repos.subjectSources.updateSubject(tenantId, found.subject.id, patch, now);
      for (const group of groups ?? []) await repos.subjects.addToGroup(await repos.subjects.ensureGroup(tenantId, group, false, now), found.subject.id);
      await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
      return this.view(repos, tenantId, found.subject.id);
    });
  }

  /** The subject, its status, memberships and assignments; its observations stay, unattributed. */
  async deleteSubject(ctx: RequestContext, id: string): Promise<void> {
    const { tenantId } = requirePermission(ctx, 'delete_subject');
    await this.deps.store.transaction(async (repos) => {
      const found = await this.view(repos, tenantId, id);
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      await repos.subjectSources.deleteSubject(tenantId, found.subject.id);
      await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, this.deps.clock.now());
    });
  }

  /** `POST subjectgroup/<id>/subjects/` with `[{id}, ...]`: every subject must be the tenant's (else 400). */
  async addGroupMembers(ctx: RequestContext, groupId: string, body: unknown): Promise<{ id: string; name: string; subjects: SubjectView[] }> {
    const { tenantId } = requirePermission(ctx, 'change_subject');
    return this.deps.store.transaction(async (repos) => {
      // The group first: another tenant's is a 404 whatever the body.
      const group = await this.group(repos, tenantId, groupId);
      const ids = readSubjectRefs(body);
      const subjects = await repos.subjectSources.findSubjects(tenantId, ids);
      const missing = ids.filter((wanted) => !subjects.some((subject) => subject.id === wanted));
      if (missing.length > 0) throw InputError.field('subjects', 'unknown_subject', `No subject ${missing[0]}.`);
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      for (const subject of subjects) await repos.subjects.addToGroup(group.id, subject.id);
      await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, this.deps.clock.now());
      return { ...group, subjects: await repos.subjectSources.subjectViews(tenantId, await repos.subjectSources.findSubjects(tenantId, ids)) };
    });
  }

  /** Removes memberships; subjects that are not members are left alone. */
  async removeGroupMembers(ctx: RequestContext, groupId: string, body: unknown): Promise<void> {
    const { tenantId } = requirePermission(ctx, 'change_subject');
    await this.deps.store.transaction(async (repos) => {
      const group = await this.group(repos, tenantId, groupId);
      const ids = readSubjectRefs(body);
      await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
      const now = this.deps.clock.now();
      const removed = await repos.subjectSources.removeFromGroup(tenantId, group.id, ids, now);
      if (removed.length > 0) await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
    });
  }

  private async group(repos: Store['repos'], tenantId: string, groupId: string) {
    const group = await repos.subjectSources.findGroup(tenantId, groupId);
    if (!group) throw new NotFoundError('No such subject group.');
    return group;
  }

  private async view(repos: Store['repos'], tenantId: string, id: string): Promise<SubjectView> {
    const [subject] = isUuid(id) ? await repos.subjectSources.findSubjects(tenantId, [id.toLowerCase()]) : [];
    if (!subject) throw new NotFoundError('No such subject.');
    return (await repos.subjectSources.subjectViews(tenantId, [subject]))[0]!;
  }
}

/** Query parameters of `subjects`, as strings (absent: undefined). */
export interface SubjectQuery {
  include_inactive?: boolean;
  updated_since?: string;
  bbox?: string;
  subject_group?: string;
  name?: string;
}

/** `bbox` is `west,south,east,north` in degrees; `subject_group` a group id (another tenant's: none match). */
export function readSubjectFilter(query: SubjectQuery): SubjectListFilter {
  const filter: SubjectListFilter = { includeInactive: query.include_inactive ?? false, updatedSince: null, bbox: null, groupId: null, name: null };
  if (query.updated_since) {
    filter.updatedSince = parseIsoWithOffset(query.updated_since);
    if (filter.updatedSince === null) throw InputError.field('updated_since', 'invalid', 'updated_since is not an ISO 8601 date-time with an offset.', ['For example 2026-11-20T10:00:00+00:00.']);
  }
  if (query.bbox) {
    const parts = query.bbox.split(',').map((part) => Number(part.trim()));
    const [west, south, east, north] = parts as [number, number, number, number];
    const valid = parts.length === 4 && parts.every(Number.isFinite) && Math.abs(west) <= 180 && Math.abs(east) <= 180 && Math.abs(south) <= 90 && Math.abs(north) <= 90 && south <= north;
    if (!valid) throw InputError.field('bbox', 'invalid', 'bbox is west,south,east,north in degrees.', ['For example bbox=36.5,-1.5,37.2,-1.0']);
    filter.bbox = [west, south, east, north];
  }
  if (query.subject_group) {
    // An id that cannot be a group matches nothing, like another tenant's group.
    filter.groupId = isUuid(query.subject_group) ? query.subject_group.toLowerCase() : '00000000-0000-0000-0000-000000000000';
  }
  if (query.name) filter.name = query.name.slice(0, 100);
  return filter;
}
