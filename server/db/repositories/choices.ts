import type { Choice } from '../../domain/model.js';
import type { ChoiceFilter, ChoiceRepository } from '../../domain/ports.js';
import type { Executor } from '../rows.js';
import { fromDbBool, fromDbMillis } from '../time.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

type Row = Record<string, unknown>;

const toChoice = (row: Row): Choice => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  field: row.field as string,
  value: row.value as string,
  display: row.display as string,
  ordernum: row.ordernum === null || row.ordernum === undefined ? null : Number(row.ordernum),
  icon: row.icon as string,
  isActive: fromDbBool(row.is_active),
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

const toRow = (choice: Choice): Row => ({
  id: choice.id,
  tenant_id: choice.tenantId,
  field: choice.field,
  value: choice.value,
  display: choice.display,
  ordernum: choice.ordernum,
  icon: choice.icon,
  is_active: choice.isActive,
  created_at: choice.createdAt,
  updated_at: choice.updatedAt,
});

/** Every write marks the choice it writes on the sync feed. */
export class KnexChoiceRepository implements ChoiceRepository {
  constructor(
    private readonly db: Executor,
    private readonly changes: ChangeSet,
  ) {}

  private filtered(tenantId: string, filter: ChoiceFilter) {
    const query = this.db('choices').where({ tenant_id: tenantId });
    if (filter.fields) query.whereIn('field', [...filter.fields]);
    if (!filter.includeInactive) query.where({ is_active: true });
    return query;
  }

  async list(tenantId: string, filter: ChoiceFilter, page?: { offset: number; limit: number }): Promise<Choice[]> {
    const query = this.filtered(tenantId, filter)
      .orderBy('field')
      .orderByRaw('CASE WHEN ordernum IS NULL THEN 1 ELSE 0 END')
      .orderBy([{ column: 'ordernum' }, { column: 'value' }]);
    if (page) query.offset(page.offset).limit(page.limit);
    return (await query).map(toChoice);
  }

  async count(tenantId: string, filter: ChoiceFilter): Promise<number> {
    const row = await this.filtered(tenantId, filter).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  async find(tenantId: string, id: string): Promise<Choice | null> {
    const row = await this.db('choices').where({ tenant_id: tenantId, id }).first();
    return row ? toChoice(row) : null;
  }

  async findMany(tenantId: string, ids: readonly string[]): Promise<Choice[]> {
    if (ids.length === 0) return [];
    return (await this.db('choices').where({ tenant_id: tenantId }).whereIn('id', [...ids])).map(toChoice);
  }

  async findByValue(tenantId: string, field: string, value: string): Promise<Choice | null> {
    const row = await this.db('choices').where({ tenant_id: tenantId, field, value }).first();
    return row ? toChoice(row) : null;
  }

  async insert(choice: Choice): Promise<void> {
    this.changes.mark('choice', choice.tenantId, choice.id);
    await this.db('choices').insert(toRow(choice));
  }

  async update(choice: Choice): Promise<void> {
    this.changes.mark('choice', choice.tenantId, choice.id);
    const { id, tenant_id, created_at, ...changes } = toRow(choice);
    await this.db('choices').where({ id, tenant_id }).update(changes);
  }
}
