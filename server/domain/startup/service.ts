import { isUuid } from '../ids.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type Principal, type RequestContext, actingUser, hasPermission, requirePermission, requirePrincipal } from '../context.js';
import { strongEtag } from '../catalog/etag.js';
import { InputError, NotFoundError } from '../errors.js';
import type { EventCategory, EventTypeV1, Subject, User } from '../model.js';
import type { Permission } from '../permissions.js';
import type { SiteMap, Store } from '../ports.js';

/** The actions of the original's permission map, by our codename prefix. */
const ACTIONS = ['add', 'change', 'delete', 'view'] as const;
/** Areas of the original's permission map: each is also our codenames' suffix (`view_patrol`). */
const AREAS = ['patrol', 'patroltype', 'event', 'eventtype', 'observation', 'subject', 'user', 'message', 'source'];
/** Areas whose data the user may export (`export_event`, `export_observation`): the web app's Data Export menu. */
const EXPORTS = ['event', 'observation'];
/** A category's actions as the original's category objects name them. */
const CATEGORY_ACTIONS: Array<[Permission, string]> = [['add_event', 'create'], ['view_event', 'read'], ['change_event', 'update']];

export interface MeView {
  user: User;
  isSuperuser: boolean;
  /** `{"patrol": ["add","change","delete","view"], "<category value>": [...], ...}` */
  permissions: Record<string, string[]>;
  subject: { id: string; name: string } | null;
  /** The newest token issued to the user (the original's `last_login`), or null. */
  lastLogin: number | null;
}

export interface V1TypesView {
  types: EventTypeV1[];
  categories: Map<string, EventCategory & { permissions: string[] }>;
  /** The caller's actions on events of any category (`create`, `read`, `update`). */
  actions: string[];
}

/**
 * What the original apps read to start (CONTRACT §11): the caller with its permission map,
 * its profiles, the site's map settings, subject groups, and v1 event types with their
 * categories. Validators are derived from what the body depends on.
 */
export class StartupService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async me(ctx: RequestContext): Promise<MeView> {
    const principal = requirePrincipal(ctx);
    const user = actingUser(principal);
    if (!user) throw new NotFoundError('An application has no user record.');
    const categories = await this.deps.store.repos.eventCategories.list(principal.tenantId, false);
    const permissions: Record<string, string[]> = {};
    for (const area of AREAS) {
      const granted: string[] = ACTIONS.filter((action) => has(principal, `${action}_${area}`));
      if (EXPORTS.includes(area) && has(principal, `export_${area}`)) granted.push('export');
      if (granted.length) permissions[area] = granted;
    }
    const eventActions = ACTIONS.filter((action) => has(principal, `${action}_event`));
    for (const category of categories) if (eventActions.length && !(category.value in permissions)) permissions[category.value] = eventActions;
    const lastLogin = await this.deps.store.repos.users.lastLoginOf(principal.tenantId, principal.kind === 'user' ? principal.user.id : user.id);
    return { user, isSuperuser: principal.isSuperuser, permissions, subject: null, lastLogin };
  }

  /** The caller as the reporter of the events it creates (activity/events/schema names it). */
  reporter(ctx: RequestContext): User {
    const user = actingUser(requirePrincipal(ctx));
    if (!user) throw new NotFoundError('An application has no user record.');
    return user;
  }

  /** The users `userId` may act as (oneself, or anyone with view_user). */
  async profiles(ctx: RequestContext, userId: string | 'me'): Promise<User[]> {
    const principal = requirePrincipal(ctx);
    const self = principal.kind === 'user' ? principal.user : null;
    const id = userId === 'me' ? self?.id : userId;
    if (!id || !isUuid(id) || (id !== self?.id && !hasPermission(principal, 'view_user'))) throw new NotFoundError('No such user.');
    const { users } = this.deps.store.repos;
    if (!(await users.findInTenant(principal.tenantId, id))) throw new NotFoundError('No such user.');
    return users.findManyInTenant(principal.tenantId, await users.profileIdsOf(id));
  }

  /** Subject groups with their subjects: the groups the caller may view (all for a superuser). */
  async subjectGroups(ctx: RequestContext): Promise<Array<{ id: string; name: string; subjects: Subject[] }>> {
    const principal = requirePermission(ctx, 'view_subject', 'view_patrol');
    const viewer = principal.isSuperuser || principal.kind === 'application' ? null : actingUser(principal)!.id;
    return this.deps.store.repos.subjects.groupsWithSubjects(principal.tenantId, viewer);
  }

  async maps(ctx: RequestContext): Promise<SiteMap[]> {
    const principal = requirePrincipal(ctx);
    const map = await this.deps.store.repos.siteMaps.find(principal.tenantId);
    return map ? [map] : [];
  }

  /** Sets a tenant's map settings (`fieldops admin set-map`). */
  async setMap(tenantName: string, input: { name: string; center: [number, number]; zoom: number }): Promise<SiteMap> {
    const tenant = await this.deps.store.repos.tenants.findByName(tenantName);
    if (!tenant) throw new NotFoundError(`No tenant "${tenantName}".`);
    const [longitude, latitude] = input.center;
    if (!(Math.abs(longitude) <= 180 && Math.abs(latitude) <= 90)) throw InputError.field('center', 'invalid', 'The center is "longitude,latitude" in degrees.', ['For example: 36.8,-1.3']);
    if (!(input.zoom >= 0 && input.zoom <= 22)) throw InputError.field('zoom', 'invalid', 'The zoom is a number from 0 to 22.');
    if (!input.name || input.name.length > 255) throw InputError.field('name', 'invalid', 'The map name is 1-255 characters.');
    const existing = await this.deps.store.repos.siteMaps.find(tenant.id);
    const map: SiteMap = { id: existing?.id ?? randomUUID(), tenantId: tenant.id, name: input.name, center: [longitude, latitude], zoom: input.zoom, updatedAt: this.deps.clock.now() };
    await this.deps.store.repos.siteMaps.upsert(map);
    return map;
  }

  /**
   * The v1 types list's ETag, decided from versions before anything is loaded: the v1 catalog
   * (types and categories: every write bumps it), the choices the documents are rendered from,
   * the variant (origin, include_schema) and the caller's actions.
   */
  async v1EventTypesTag(ctx: RequestContext, variant: string): Promise<string> {
    const principal = requirePermission(ctx, 'view_eventtype');
    const { catalog } = this.deps.store.repos;
    const v1 = await catalog.version(principal.tenantId, 'eventtypes_v1');
    const choices = await catalog.version(principal.tenantId, 'choices');
    return strongEtag('v1eventtypes', principal.tenantId, variant, v1.version, choices.version, categoryActions(principal).join(','));
  }

  /** Active v1 event types with their categories as objects (the caller's actions on each). */
  async v1EventTypes(ctx: RequestContext): Promise<V1TypesView> {
    const principal = requirePermission(ctx, 'view_eventtype');
    const { repos } = this.deps.store;
    const types = await repos.eventTypesV1.list(principal.tenantId);
    const categories = await this.categories(ctx);
    return { types: types.filter((type) => type.isActive && !type.migratedTo), categories: new Map(categories.map((c) => [c.value, c])), actions: categoryActions(principal) };
  }

  /** Event categories as the v1 clients read them: with the caller's actions on each. */
  async categories(ctx: RequestContext): Promise<Array<EventCategory & { permissions: string[] }>> {
    const principal = requirePermission(ctx, 'view_eventtype');
    const actions = categoryActions(principal);
    return (await this.deps.store.repos.eventCategories.list(principal.tenantId, true)).map((category) => ({ ...category, permissions: actions }));
  }
}

function categoryActions(principal: Principal): string[] {
  return CATEGORY_ACTIONS.filter(([permission]) => hasPermission(principal, permission)).map(([, action]) => action);
}

function has(principal: Principal, codename: string): boolean {
  return principal.isSuperuser || principal.permissions.has(codename);
}
