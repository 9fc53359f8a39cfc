import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import { type RequestContext, requirePermission } from '../context.js';
import { BodyReader } from '../catalog/fields.js';
import { presentOnly } from '../catalog/input.js';
import { InputError, NotFoundError } from '../errors.js';
import type { EventCategory } from '../model.js';
import type { Store } from '../ports.js';

/** Event categories: the slugs event types are grouped by (`/api/v2.0/activity/eventcategories`). */
export class EventCategoryService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async list(ctx: RequestContext, includeInactive: boolean): Promise<EventCategory[]> {
    const { tenantId } = requirePermission(ctx, 'view_eventtype');
    return this.deps.store.repos.eventCategories.list(tenantId, includeInactive);
  }

  async get(ctx: RequestContext, key: string): Promise<EventCategory> {
    const { tenantId } = requirePermission(ctx, 'view_eventtype');
    const category = key.length <= 100 ? await this.deps.store.repos.eventCategories.find(tenantId, key) : null;
    if (!category) throw new NotFoundError('No such event category.');
    return category;
  }

  async create(ctx: RequestContext, body: unknown): Promise<EventCategory> {
    const { tenantId } = requirePermission(ctx, 'add_eventtype');
    const fields = readCategoryBody(body, true);
    return this.deps.store.transaction(async (repos) => {
      if (await repos.eventCategories.find(tenantId, fields.value!)) throw InputError.field('value', 'unique', `Event category "${fields.value}" already exists.`);
      const now = this.deps.clock.now();
      const category: EventCategory = { id: randomUUID(), tenantId, value: fields.value!, display: fields.display ?? fields.value!, ordernum: fields.ordernum ?? null, isActive: fields.isActive ?? true, createdAt: now, updatedAt: now };
      await repos.eventCategories.insert(category);
      await repos.catalog.bump(tenantId, 'eventtypes_v1', now);
      return category;
    });
  }

  async update(ctx: RequestContext, key: string, body: unknown): Promise<EventCategory> {
    const { tenantId } = requirePermission(ctx, 'change_eventtype');
    const fields = readCategoryBody(body, false);
    return this.deps.store.transaction(async (repos) => {
      const current = await repos.eventCategories.find(tenantId, key);
      if (!current) throw new NotFoundError('No such event category.');
      if (fields.value && fields.value !== current.value && (await repos.eventCategories.find(tenantId, fields.value))) {
        throw InputError.field('value', 'unique', `Event category "${fields.value}" already exists.`);
      }
      const next = { ...current, ...presentOnly(fields), updatedAt: this.deps.clock.now() };
      await repos.eventCategories.update(next);
      await repos.catalog.bump(tenantId, 'eventtypes_v1', next.updatedAt);
      return next;
    });
  }
}

function readCategoryBody(body: unknown, required: boolean): Partial<EventCategory> {
  const reader = BodyReader.of(body);
  // `flag` and `permissions`: served by the v1 list (startup), echoed by the original clients.
  reader.rejectUnknown(['value', 'display', 'ordernum', 'is_active'], ['id', 'created_at', 'updated_at', 'flag', 'permissions']);
  const ordernum = reader.body.ordernum;
  if (ordernum !== undefined && ordernum !== null && (typeof ordernum !== 'number' || !Number.isFinite(ordernum))) {
    reader.add('ordernum', { code: 'invalid_type', message: 'ordernum must be a number or null.', hints: ['For example 10.'] });
  }
  const fields: Partial<EventCategory> = {
    value: reader.string('value', { max: 50, pattern: /^[A-Za-z0-9_-]+$/, patternHint: 'Use letters, digits, - and _.', required }),
    display: reader.string('display', { max: 255 }),
    isActive: reader.boolean('is_active'),
    ordernum: ordernum as number | null | undefined,
  };
  reader.finish('The event category is not valid.');
  return fields;
}
