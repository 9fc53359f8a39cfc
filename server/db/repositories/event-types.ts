import type { EventCategory, EventTypeV1 } from '../../domain/model.js';
import type { EventCategoryRepository, EventTypeV1Repository } from '../../domain/ports.js';
import { isUuid } from '../../domain/ids.js';
import type { Executor } from '../rows.js';
import { fromDbBool, fromDbMillis } from '../time.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

type Row = Record<string, unknown>;

const byKey = (key: string) => (isUuid(key) ? { id: key.toLowerCase() } : { value: key });

const toCategory = (row: Row): EventCategory => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  value: row.value as string,
  display: row.display as string,
  ordernum: row.ordernum === null || row.ordernum === undefined ? null : Number(row.ordernum),
  isActive: fromDbBool(row.is_active),
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

const categoryRow = (c: EventCategory): Row => ({
  id: c.id, tenant_id: c.tenantId, value: c.value, display: c.display, ordernum: c.ordernum,
  is_active: c.isActive, created_at: c.createdAt, updated_at: c.updatedAt,
});

/** Every write marks the category it writes on the sync feed. */
export class KnexEventCategoryRepository implements EventCategoryRepository {
  constructor(
    private readonly db: Executor,
    private readonly changes: ChangeSet,
  ) {}

  async list(tenantId: string, includeInactive: boolean): Promise<EventCategory[]> {
    const query = this.db('event_categories').where({ tenant_id: tenantId });
    if (!includeInactive) query.where({ is_active: true });
    const rows = await query.orderByRaw('CASE WHEN ordernum IS NULL THEN 1 ELSE 0 END').orderBy([{ column: 'ordernum' }, { column: 'value' }]);
    return rows.map(toCategory);
  }

  async find(tenantId: string, key: string): Promise<EventCategory | null> {
    const row = await this.db('event_categories').where({ tenant_id: tenantId }).where(byKey(key)).first();
    return row ? toCategory(row) : null;
  }

  async insert(category: EventCategory): Promise<void> {
    this.changes.mark('event_category', category.tenantId, category.id);
    await this.db('event_categories').insert(categoryRow(category));
  }

  async update(category: EventCategory): Promise<void> {
    this.changes.mark('event_category', category.tenantId, category.id);
    const { id, tenant_id, created_at, ...changes } = categoryRow(category);
    await this.db('event_categories').where({ id, tenant_id }).update(changes);
  }
}

const toV1 = (row: Row): EventTypeV1 => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  value: row.value as string,
  display: row.display as string,
  category: row.category as string,
  defaultPriority: Number(row.default_priority),
  isActive: fromDbBool(row.is_active),
  schemaText: row.schema_text as string,
  migratedTo: (row.migrated_to as string | null) ?? null,
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

const v1Row = (t: EventTypeV1): Row => ({
  id: t.id, tenant_id: t.tenantId, value: t.value, display: t.display, category: t.category,
  default_priority: t.defaultPriority, is_active: t.isActive, schema_text: t.schemaText,
  migrated_to: t.migratedTo, created_at: t.createdAt, updated_at: t.updatedAt,
});

/**
 * Not on the sync feed (v1 types are not a fed kind). But an event whose type has no v2
 * definition takes its v1 type's category (server/db/sync/facts.ts), so a category change
 * marks those events: their `ev:cat:` key moves.
 */
export class KnexEventTypeV1Repository implements EventTypeV1Repository {
  constructor(
    private readonly db: Executor,
    private readonly changes: ChangeSet,
  ) {}

  async list(tenantId: string): Promise<EventTypeV1[]> {
    return (await this.db('event_types_v1').where({ tenant_id: tenantId }).orderBy('value')).map(toV1);
  }

  async find(tenantId: string, key: string): Promise<EventTypeV1 | null> {
    const row = await this.db('event_types_v1').where({ tenant_id: tenantId }).where(byKey(key)).first();
    return row ? toV1(row) : null;
  }

  async insert(type: EventTypeV1): Promise<void> {
    await this.db('event_types_v1').insert(v1Row(type));
  }

  async update(type: EventTypeV1): Promise<void> {
    const { id, tenant_id, created_at, ...changes } = v1Row(type);
    const before = await this.db('event_types_v1').where({ id, tenant_id }).first('category');
    await this.db('event_types_v1').where({ id, tenant_id }).update(changes);
    if (before && before.category !== type.category) await this.markEventsCategorisedBy(type);
  }

  /** The type's events that no v2 type of the same value categorises. */
  private async markEventsCategorisedBy(type: EventTypeV1): Promise<void> {
    const ids: string[] = await this.db('events as e')
      .where({ 'e.tenant_id': type.tenantId, 'e.event_type': type.value })
      .whereNotExists(this.db('event_types as t').select(this.db.raw('1')).whereRaw('t.tenant_id = e.tenant_id AND t.value = e.event_type'))
      .pluck('e.id');
    for (const eventId of ids) this.changes.mark('event', type.tenantId, String(eventId));
  }
}
