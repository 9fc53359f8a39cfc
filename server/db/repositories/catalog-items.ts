import type { CatalogItem, EventType } from '../../domain/model.js';
import type { CatalogFilter, CatalogItemRepository, EventTypeRepository } from '../../domain/ports.js';
import { isUuid } from '../../domain/ids.js';
import type { Executor } from '../rows.js';
import { fromDbBool, fromDbMillis } from '../time.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

type Row = Record<string, unknown>;

/** Row mapping of one catalog table: the common columns here, the kind's own in `extra`. */
export interface CatalogTable<T extends CatalogItem> {
  table: string;
  /** The record kind its writes mark on the sync feed. */
  kind: 'patrol_type' | 'event_type';
  fromRow(common: CatalogItem, row: Row): T;
  toRow(item: T): Row;
}

export function commonFromRow(row: Row): CatalogItem {
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    value: row.value as string,
    display: row.display as string,
    ordernum: row.ordernum === null || row.ordernum === undefined ? null : Number(row.ordernum),
    icon: row.icon as string,
    defaultPriority: Number(row.default_priority),
    isActive: fromDbBool(row.is_active),
    schema: row.schema as string,
    revision: Number(row.revision),
    createdAt: fromDbMillis(row.created_at),
    updatedAt: fromDbMillis(row.updated_at),
  };
}

export function commonToRow(item: CatalogItem): Row {
  return {
    id: item.id,
    tenant_id: item.tenantId,
    value: item.value,
    display: item.display,
    ordernum: item.ordernum,
    icon: item.icon,
    default_priority: item.defaultPriority,
    is_active: item.isActive,
    schema: item.schema,
    revision: item.revision,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  };
}

export const patrolTypesTable: CatalogTable<CatalogItem> = {
  table: 'patrol_types',
  kind: 'patrol_type',
  fromRow: (common) => common,
  toRow: commonToRow,
};

export const eventTypesTable: CatalogTable<EventType> = {
  table: 'event_types',
  kind: 'event_type',
  fromRow: (common, row) => ({
    ...common,
    category: row.category as string,
    defaultState: row.default_state as EventType['defaultState'],
    geometryType: row.geometry_type as EventType['geometryType'],
    isCollection: fromDbBool(row.is_collection),
    readonly: fromDbBool(row.readonly),
  }),
  toRow: (item) => ({
    ...commonToRow(item),
    category: item.category,
    default_state: item.defaultState,
    geometry_type: item.geometryType,
    is_collection: item.isCollection,
    readonly: item.readonly,
  }),
};

/** Every write marks the item it writes (a rank renumbering marks each sibling it moves). */
export class KnexCatalogItemRepository<T extends CatalogItem> implements CatalogItemRepository<T> {
  constructor(
    protected readonly db: Executor,
    private readonly spec: CatalogTable<T>,
    private readonly changes: ChangeSet,
  ) {}

  private map = (row: Row): T => this.spec.fromRow(commonFromRow(row), row);

  async list(tenantId: string, filter: CatalogFilter): Promise<T[]> {
    const query = this.db(this.spec.table).where({ tenant_id: tenantId });
    if (!filter.includeInactive) query.where({ is_active: true });
    if (filter.updatedSince !== null) query.where('updated_at', '>=', filter.updatedSince);
    // NULLS LAST spelled portably: SQLite and PostgreSQL disagree on the default.
    const rows = await query
      .orderByRaw('CASE WHEN ordernum IS NULL THEN 1 ELSE 0 END')
      .orderBy([{ column: 'ordernum' }, { column: 'display' }, { column: 'value' }]);
    return rows.map(this.map);
  }

  async find(tenantId: string, key: string): Promise<T | null> {
    const row = await this.db(this.spec.table)
      .where({ tenant_id: tenantId })
      .where(isUuid(key) ? { id: key.toLowerCase() } : { value: key })
      .first();
    return row ? this.map(row) : null;
  }

  async findMany(tenantId: string, ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    return (await this.db(this.spec.table).where({ tenant_id: tenantId }).whereIn('id', [...ids])).map(this.map);
  }

  async insert(item: T): Promise<void> {
    this.changes.mark(this.spec.kind, item.tenantId, item.id);
    await this.db(this.spec.table).insert(this.spec.toRow(item));
  }

  async update(item: T): Promise<void> {
    this.changes.mark(this.spec.kind, item.tenantId, item.id);
    const { id, tenant_id, created_at, ...changes } = this.spec.toRow(item);
    await this.db(this.spec.table).where({ id, tenant_id }).update(changes);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    this.changes.mark(this.spec.kind, tenantId, id);
    await this.db(this.spec.table).where({ tenant_id: tenantId, id }).delete();
  }

  async setOrdernum(tenantId: string, id: string, ordernum: number, revision: number): Promise<void> {
    this.changes.mark(this.spec.kind, tenantId, id);
    await this.db(this.spec.table).where({ tenant_id: tenantId, id }).update({ ordernum, revision });
  }
}

export class KnexEventTypeRepository extends KnexCatalogItemRepository<EventType> implements EventTypeRepository {
  constructor(db: Executor, changes: ChangeSet) {
    super(db, eventTypesTable, changes);
  }

  /** One EXISTS probe per type on the events' (tenant_id, event_type) index: never a walk over the events. */
  async valuesWithEvents(tenantId: string): Promise<string[]> {
    const used = this.db('events as e').select(this.db.raw('1')).whereRaw('e.tenant_id = t.tenant_id AND e.event_type = t.value');
    return (await this.db('event_types as t').where('t.tenant_id', tenantId).whereExists(used).orderBy('t.value').pluck('t.value')).map(String);
  }

}
