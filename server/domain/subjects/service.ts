import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { strongEtag, type Validators } from '../catalog/etag.js';
import { type Subject, SUBJECTS_CATALOG } from '../model.js';
import type { Store } from '../ports.js';

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
}
