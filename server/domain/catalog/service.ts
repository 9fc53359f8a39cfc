import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { InputError, NotFoundError, PreconditionFailedError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { CatalogItem, RevisionEntry } from '../model.js';
import type { Repositories, Store } from '../ports.js';
import { strongEtag, type Validators } from './etag.js';
import type { CatalogKind } from './kind.js';
import { type CatalogDetailQuery, type CatalogListQuery, detailQueryKey, listQueryKey } from './queries.js';
import { planRank } from './rank.js';
import { EMPTY_ENVELOPE_TEXT } from './schema-write.js';
import { presentOnly } from './input.js';

/** An `If-Match` precondition: how to compare a tag, and the representation variant (origin). */
export interface Precondition {
  matches(etag: string): boolean;
  variant: string;
}

/**
 * A list's validators; with `withUsage` (and a kind that has usage) also the values in use, read
 * before the 304 is decided: they are part of the body, so they are part of the ETag, and there
 * is no `Last-Modified` (the catalog's modification time does not move when an item's usage does).
 */
export type ListValidators = Validators & { inUse?: ReadonlySet<string> };

/**
 * One schema-carrying catalog of a tenant: reads with database-derived validators, writes in
 * one transaction each (catalog lock first, version bumped only when something changed,
 * history written alongside), rank with midpoint ordernums.
 */
export class CatalogService<T extends CatalogItem> {
  constructor(
    private readonly kind: CatalogKind<T>,
    private readonly deps: { store: Store; clock: Clock },
  ) {}

  /** List validators from one small read per catalog involved: nothing is loaded to decide a 304. */
  async listValidators(ctx: RequestContext, query: CatalogListQuery, variant = ''): Promise<ListValidators> {
    const { tenantId } = requirePermission(ctx, ...this.kind.permissions.view);
    const { catalog } = this.deps.store.repos;
    const others = this.kind.listDependsOn ?? [];
    const usage = query.withUsage && this.kind.usage ? this.kind.usage(this.deps.store.repos, tenantId) : Promise.resolve(null);
    // Asked together, so that the reads share one loop iteration's batch (see CoalescedReads).
    const [[own, ...dependencies], inUse] = await Promise.all([Promise.all([this.kind.catalog, ...others].map((name) => catalog.version(tenantId, name))), usage]);
    const parts: Array<string | number> = [this.kind.catalog, tenantId, own!.version, listQueryKey(query), variant];
    others.forEach((other, i) => parts.push(other, dependencies[i]!.version));
    if (inUse) {
      return { etag: strongEtag(...parts, 'in-use', inUse.join('\u0001')), inUse: new Set(inUse) };
    }
    // A catalog never written has no modification time to tell (issue 27: not `Last-Modified: 1970`).
    return { etag: strongEtag(...parts), ...(own!.lastModified > 0 ? { lastModified: own!.lastModified } : {}) };
  }

  async list(ctx: RequestContext, query: Pick<CatalogListQuery, 'includeInactive' | 'updatedSince'>): Promise<T[]> {
    const { tenantId } = requirePermission(ctx, ...this.kind.permissions.view);
    return this.kind.repository(this.deps.store.repos).list(tenantId, query);
  }

  /** One item with its validators (from its own revision); deactivated items are 404 unless asked for. */
  async detail(ctx: RequestContext, key: string, query: CatalogDetailQuery, variant = ''): Promise<{ item: T; validators: Validators; inUse?: boolean }> {
    const { tenantId } = requirePermission(ctx, ...this.kind.permissions.view);
    const item = await this.find(this.deps.store.repos, tenantId, key, query.includeInactive);
    if (query.withUsage && this.kind.usage) {
      // As the list's (ListValidators): the usage is in the ETag, and no Last-Modified.
      const inUse = (await this.kind.usage(this.deps.store.repos, tenantId)).includes(item.value);
      return { item, validators: { etag: this.detailEtag(item, query, variant, inUse) }, inUse };
    }
    return { item, validators: { etag: this.detailEtag(item, query, variant), lastModified: item.updatedAt } };
  }

  /** `inUse` only for a read that asked for the usage: without it the tag is the one it always was (sync-presenters.ts spells it too). */
  private detailEtag(item: T, query: CatalogDetailQuery, variant: string, inUse?: boolean): string {
    const parts = [this.kind.catalog, item.tenantId, item.id, item.revision, detailQueryKey(query), variant];
    return inUse === undefined ? strongEtag(...parts) : strongEtag(...parts, 'in-use', inUse);
  }

  /**
   * Optimistic concurrency: an `If-Match` on a write must name the item's current revision.
   * Any representation of that revision counts (with or without schema, deactivated shown or
   * not), since the client may have read any of them; a stale or foreign tag is 412.
   */
  private checkIfMatch(item: T, precondition: Precondition | undefined): void {
    if (!precondition) return;
    const current = [false, true].flatMap((includeInactive) => [false, true].flatMap((includeSchema) =>
      [undefined, false, true].map((inUse) => this.detailEtag(item, { includeInactive, includeSchema }, precondition.variant, inUse))));
    if (!current.some((etag) => precondition.matches(etag))) throw new PreconditionFailedError(`The ${this.kind.label} has changed since it was read (If-Match does not match its current ETag).`);
  }

  /** For reads that need the item but no validators (schema, history). */
  async get(ctx: RequestContext, key: string, includeInactive: boolean): Promise<T> {
    const { tenantId } = requirePermission(ctx, ...this.kind.permissions.view);
    return this.find(this.deps.store.repos, tenantId, key, includeInactive);
  }

  async create(ctx: RequestContext, body: unknown): Promise<T> {
    const { tenantId } = requirePermission(ctx, this.kind.permissions.add);
    const fields = this.kind.readBody(body, 'create');
    return this.write(tenantId, (repos, now) => this.createWithin(repos, ctx, tenantId, fields, now));
  }

  /** PUT and PATCH: only the fields present change; a write that changes nothing changes nothing. */
  async update(ctx: RequestContext, key: string, body: unknown, mode: 'replace' | 'patch', precondition?: Precondition): Promise<T> {
    const { tenantId } = requirePermission(ctx, this.kind.permissions.change);
    const fields = this.kind.readBody(body, mode);
    return this.write(tenantId, async (repos, now) => {
      const current = await this.find(repos, tenantId, key, true);
      this.checkIfMatch(current, precondition);
      return this.updateWithin(repos, ctx, current, fields, now);
    });
  }

  /**
   * Creates an item inside the caller's transaction (which holds the catalog lock and bumps the
   * version afterwards): for writes that span catalogs, such as the v1 → v2 migration.
   */
  async createWithin(repos: Repositories, ctx: RequestContext, tenantId: string, fields: Partial<T>, now: number): Promise<T> {
    await this.assertValueFree(repos, tenantId, fields.value!, null);
    const base: CatalogItem = {
      id: randomUUID(), tenantId, value: fields.value!, display: fields.display ?? '', ordernum: null, icon: fields.icon ?? '',
      defaultPriority: fields.defaultPriority ?? 0, isActive: fields.isActive ?? true, schema: fields.schema ?? EMPTY_ENVELOPE_TEXT,
      revision: 1, createdAt: now, updatedAt: now,
    };
    const item = this.kind.newItem(base, fields);
    await this.kind.check?.(repos, tenantId, item);
    await this.kind.repository(repos).insert(item);
    await this.record(repos, ctx, item, 'created', now, null);
    return item;
  }

  /**
   * Issue 28: a write of one item that the caller computes (restore, publish), in this catalog's
   * write transaction: change permission, catalog lock, If-Match (when given), then `work`, which
   * writes through updateWithin; the version moves only when a row of the catalog was written.
   */
  async writeItem<R>(ctx: RequestContext, key: string, precondition: Precondition | undefined, work: (repos: Repositories, current: T, now: number) => Promise<R>): Promise<R> {
    const { tenantId } = requirePermission(ctx, this.kind.permissions.change);
    return this.write(tenantId, async (repos, now) => {
      const current = await this.find(repos, tenantId, key, true);
      this.checkIfMatch(current, precondition);
      return work(repos, current, now);
    });
  }

  /** Applies the fields present to an item inside the caller's transaction; unchanged → untouched. `note` goes to the history entry (issue 28). */
  async updateWithin(repos: Repositories, ctx: RequestContext, current: T, fields: Partial<T>, now: number, note?: string): Promise<T> {
    if (fields.value !== undefined && fields.value !== current.value) await this.assertValueFree(repos, current.tenantId, fields.value, current.id);
    const next: T = { ...current, ...presentOnly(fields) };
    const changed = this.kind.tracked.filter(({ field }) => JSON.stringify(current[field]) !== JSON.stringify(next[field]));
    if (changed.length === 0) return current;
    await this.kind.check?.(repos, current.tenantId, next);
    const saved: T = { ...next, revision: current.revision + 1, updatedAt: Math.max(now, current.updatedAt + 1) };
    await this.kind.repository(repos).update(saved);
    await this.record(repos, ctx, saved, 'updated', saved.updatedAt, changed.map(({ field }) => field), note);
    return saved;
  }

  /** Finds an item (deactivated included) inside the caller's transaction; null when absent. */
  async findWithin(repos: Repositories, tenantId: string, key: string): Promise<T | null> {
    return this.kind.repository(repos).find(tenantId, key);
  }

  async remove(ctx: RequestContext, key: string, precondition?: Precondition): Promise<void> {
    const { tenantId } = requirePermission(ctx, this.kind.permissions.delete);
    await this.write(tenantId, async (repos) => {
      const current = await this.find(repos, tenantId, key, true);
      this.checkIfMatch(current, precondition);
      await this.kind.repository(repos).delete(tenantId, current.id);
      // Issue 28: a draft never outlives its item (drafts are keyed by catalog and item id).
      await repos.catalogDrafts.delete(tenantId, this.kind.catalog, current.id);
    });
  }

  /** Moves an item before another (or to the front). Renumbered siblings keep their updated_at. */
  async rank(ctx: RequestContext, key: string, beforeKey: string | null): Promise<void> {
    const { tenantId } = requirePermission(ctx, this.kind.permissions.change);
    await this.write(tenantId, async (repos, now) => {
      const repository = this.kind.repository(repos);
      const moved = await this.find(repos, tenantId, key, true);
      const ordered = await repository.list(tenantId, { includeInactive: true, updatedSince: null });
      if (beforeKey !== null && (beforeKey === moved.id || !ordered.some((item) => item.id === beforeKey))) {
        throw InputError.field('before_key', 'invalid', `before_key must be the id of another ${this.kind.label} of this catalog.`, ['Use null to move it to the front.']);
      }
      const plan = planRank(ordered, moved.id, beforeKey);
      for (const { id, ordernum } of plan.renumbered) {
        await repository.setOrdernum(tenantId, id, ordernum, ordered.find((item) => item.id === id)!.revision + 1);
      }
      const saved: T = { ...moved, ordernum: plan.ordernum, revision: moved.revision + 1, updatedAt: Math.max(now, moved.updatedAt + 1) };
      await repository.update(saved);
      await this.record(repos, ctx, saved, 'updated', saved.updatedAt, ['ordernum']);
    });
  }

  async history(ctx: RequestContext, key: string, includeInactive: boolean, page: { offset: number; limit: number }) {
    const item = await this.get(ctx, key, includeInactive);
    return this.deps.store.repos.catalog.revisions(item.tenantId, this.kind.catalog, item.id, page.offset, page.limit);
  }

  /** Every write: one transaction, catalog lock first, version bumped when a row was written. */
  private async write<R>(tenantId: string, work: (repos: Repositories, now: number) => Promise<R>): Promise<R> {
    return this.deps.store.transaction(async (repos) => {
      await repos.catalog.lock(tenantId, this.kind.catalog);
      const before = await repos.catalog.version(tenantId, this.kind.catalog);
      const now = Math.max(this.deps.clock.now(), before.lastModified);
      let changed = false;
      const result = await work(watchWrites(repos, this.kind, () => (changed = true)), now);
      if (changed) await repos.catalog.bump(tenantId, this.kind.catalog, now);
      return result;
    });
  }

  private async find(repos: Repositories, tenantId: string, key: string, includeInactive: boolean): Promise<T> {
    // Keys with control characters name nothing (and PostgreSQL text cannot even hold NUL).
    const item = key.length <= 100 && !/[\u0000-\u001f]/.test(key) ? await this.kind.repository(repos).find(tenantId, key) : null;
    if (!item || (!item.isActive && !includeInactive)) throw new NotFoundError(`No such ${this.kind.label}.`);
    return item;
  }

  private async assertValueFree(repos: Repositories, tenantId: string, value: string, exceptId: string | null): Promise<void> {
    const existing = await this.kind.repository(repos).find(tenantId, value);
    if (existing && existing.id !== exceptId) {
      throw InputError.field('value', 'unique', `A ${this.kind.label} with value "${value}" already exists.`, ['Choose another value.']);
    }
  }

  private async record(repos: Repositories, ctx: RequestContext, item: T, action: RevisionEntry['action'], time: number, changed: string[] | null, note?: string) {
    const user = ctx.principal ? actingUser(ctx.principal) : null;
    const pick = (fields: ReadonlyArray<{ field: keyof T & string; apiName: string }>) =>
      Object.fromEntries(fields.map(({ field, apiName }) => [apiName, field === 'schema' ? JSON.parse(item.schema) : item[field]]));
    await repos.catalog.appendRevision({
      id: randomUUID(),
      tenantId: item.tenantId,
      catalog: this.kind.catalog,
      itemId: item.id,
      action,
      time,
      userId: user?.id ?? null,
      username: user?.username ?? null,
      updatedFields: changed ? pick(this.kind.tracked.filter(({ field }) => changed.includes(field))) : null,
      snapshot: changed ? null : pick(this.kind.tracked),
      ...(note ? { note } : {}),
    });
  }
}

/** Marks the transaction as changing the catalog whenever a mutating repository method runs. */
function watchWrites<T extends CatalogItem>(repos: Repositories, kind: CatalogKind<T>, onWrite: () => void): Repositories {
  const repository = kind.repository(repos);
  const mutating = new Set(['insert', 'update', 'delete', 'setOrdernum']);
  const watched = new Proxy(repository, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !mutating.has(String(property))) return value;
      return (...args: unknown[]) => {
        onWrite();
        return value.apply(target, args);
      };
    },
  });
  return new Proxy(repos, { get: (target, property) => (target[property as keyof Repositories] === repository ? watched : target[property as keyof Repositories]) });
}

/** `{"before_key": <uuid> | null}` of a rank request. */
export function readBeforeKey(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('before_key' in body)) {
    throw InputError.field('before_key', 'required', 'before_key is required (an id, or null for the front).', ['Send {"before_key": null} to move to the front.']);
  }
  const value = (body as { before_key: unknown }).before_key;
  if (value === null) return null;
  if (typeof value !== 'string' || !isUuid(value)) throw InputError.field('before_key', 'invalid', 'before_key must be a UUID or null.');
  return value.toLowerCase();
}
