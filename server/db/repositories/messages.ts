import type { MessageDevice, MessageFilter, MessageRecord, MessageRepository, MessageStatus, MessageType, MessageView } from '../../domain/messages/ports.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import type { Dialect } from '../knex.js';
import type { ChangeSet } from '../../domain/sync/ports.js';
import { fromDbBool, fromDbMillis } from '../time.js';
import type { Knex } from 'knex';

const COLUMNS = [
  'm.id', 'm.tenant_id', 'm.message_type', 'm.subject_id', 'm.source_id', 'm.user_id', 'm.text', 'm.status', 'm.latitude', 'm.longitude',
  'm.message_time', 'm.read', 'm.additional', 'm.created_at', 'm.updated_at',
  's.name as subject_name', 's.subject_type', 's.subject_subtype', 'src.manufacturer_id', 'p.provider_key',
  'u.username', 'u.first_name', 'u.last_name',
];

type Row = Record<string, unknown>;

function toView(row: Row): MessageView {
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    messageType: row.message_type as MessageType,
    subjectId: (row.subject_id as string | null) ?? null,
    sourceId: (row.source_id as string | null) ?? null,
    userId: (row.user_id as string | null) ?? null,
    text: String(row.text),
    status: row.status as MessageStatus,
    latitude: number(row.latitude),
    longitude: number(row.longitude),
    messageTime: fromDbMillis(row.message_time),
    read: fromDbBool(row.read),
    additional: parseJsonColumn<Record<string, unknown>>(row.additional, {}),
    createdAt: fromDbMillis(row.created_at),
    updatedAt: fromDbMillis(row.updated_at),
    subject: row.subject_id && row.subject_name !== null && row.subject_name !== undefined
      ? { id: String(row.subject_id), name: String(row.subject_name), subjectType: String(row.subject_type ?? ''), subjectSubtype: String(row.subject_subtype ?? '') }
      : null,
    source: row.source_id && row.manufacturer_id ? { id: String(row.source_id), manufacturerId: String(row.manufacturer_id), providerKey: String(row.provider_key ?? '') } : null,
    user: row.user_id && row.username ? { id: String(row.user_id), username: String(row.username), firstName: String(row.first_name ?? ''), lastName: String(row.last_name ?? '') } : null,
  };
}

/** Messages (not a fed record: no change-set marks). Every query is scoped to the tenant. */
export class KnexMessageRepository implements MessageRepository {
  constructor(
    protected readonly db: Executor,
    protected readonly dialect: Dialect,
    protected readonly changes: ChangeSet,
  ) {}

  async insert(record: MessageRecord): Promise<void> {
    await this.db('messages').insert({
      id: record.id, tenant_id: record.tenantId, message_type: record.messageType, subject_id: record.subjectId, source_id: record.sourceId,
      user_id: record.userId, text: record.text, status: record.status, latitude: record.latitude, longitude: record.longitude,
      message_time: record.messageTime, read: record.read, additional: jsonColumn(record.additional), created_at: record.createdAt, updated_at: record.updatedAt,
    });
  }

  private joined(tenantId: string): Knex.QueryBuilder {
    return this.db('messages as m')
      .leftJoin('subjects as s', function () {
        this.on('s.id', '=', 'm.subject_id').andOn('s.tenant_id', '=', 'm.tenant_id');
      })
      .leftJoin('sensor_sources as src', function () {
        this.on('src.id', '=', 'm.source_id').andOn('src.tenant_id', '=', 'm.tenant_id');
      })
      .leftJoin('sensor_providers as p', 'p.id', 'src.provider_id')
      .leftJoin('users as u', function () {
        this.on('u.id', '=', 'm.user_id').andOn('u.tenant_id', '=', 'm.tenant_id');
      })
      .where('m.tenant_id', tenantId);
  }

  async find(tenantId: string, id: string): Promise<MessageView | null> {
    const row = (await this.joined(tenantId).andWhere('m.id', id).first(COLUMNS)) as Row | undefined;
    return row ? toView(row) : null;
  }

  async list(tenantId: string, filter: MessageFilter, offset: number, limit: number): Promise<{ total: number; items: MessageView[] }> {
    const where = (query: Knex.QueryBuilder) => {
      query.where('m.tenant_id', tenantId);
      if (filter.subjectIds !== undefined) query.whereIn('m.subject_id', filter.subjectIds);
      if (filter.sourceId !== undefined) query.andWhere('m.source_id', filter.sourceId);
      if (filter.read !== undefined) query.andWhere('m.read', filter.read);
      if (filter.messageType !== undefined) query.andWhere('m.message_type', filter.messageType);
      return query;
    };
    const counted = (await where(this.db('messages as m')).count({ n: '*' }).first()) as { n: unknown } | undefined;
    const total = Number(counted?.n ?? 0);
    if (total === 0 || offset >= total) return { total, items: [] };
    const rows = (await where(this.joined(tenantId)).orderBy([{ column: 'm.message_time', order: 'desc' }, { column: 'm.id', order: 'desc' }]).offset(offset).limit(limit).select(COLUMNS)) as Row[];
    return { total, items: rows.map(toView) };
  }

  async setRead(tenantId: string, ids: readonly string[], read: boolean, at: number): Promise<string[]> {
    if (!ids.length) return [];
    const found = (await this.db('messages').where('tenant_id', tenantId).whereIn('id', ids).select('id', 'read')) as Row[];
    const changing = found.filter((row) => fromDbBool(row.read) !== read).map((row) => String(row.id));
    if (changing.length) await this.db('messages').where('tenant_id', tenantId).whereIn('id', changing).update({ read, updated_at: at });
    return found.map((row) => String(row.id));
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('messages').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  async subjectExists(tenantId: string, subjectId: string): Promise<boolean> {
    return Boolean(await this.db('subjects').where({ tenant_id: tenantId, id: subjectId }).first('id'));
  }

  async findDevice(tenantId: string, by: { sourceId?: string; manufacturerId?: string; providerKey?: string }, at: number): Promise<MessageDevice | 'ambiguous' | null> {
    const query = this.db('sensor_sources as src').join('sensor_providers as p', 'p.id', 'src.provider_id').where('src.tenant_id', tenantId);
    if (by.sourceId !== undefined) query.andWhere('src.id', by.sourceId);
    if (by.manufacturerId !== undefined) query.andWhere('src.manufacturer_id', by.manufacturerId);
    if (by.providerKey !== undefined) query.andWhere('p.provider_key', by.providerKey);
    const rows = (await query.limit(2).select('src.id')) as Row[];
    if (rows.length > 1) return 'ambiguous';
    if (!rows[0]) return null;
    const sourceId = String(rows[0].id);
    const assignment = (await this.db('subject_sources')
      .where({ tenant_id: tenantId, source_id: sourceId })
      .andWhere('range_lower', '<=', at)
      .andWhere((q) => q.whereNull('range_upper').orWhere('range_upper', '>', at))
      .orderBy('range_lower', 'desc')
      .first('subject_id')) as Row | undefined;
    return { sourceId, subjectId: assignment ? String(assignment.subject_id) : null };
  }

  async sourceOfSubject(tenantId: string, subjectId: string, at: number): Promise<string | null> {
    const row = (await this.db('subject_sources')
      .where({ tenant_id: tenantId, subject_id: subjectId })
      .andWhere('range_lower', '<=', at)
      .andWhere((q) => q.whereNull('range_upper').orWhere('range_upper', '>', at))
      .orderBy('range_lower', 'desc')
      .first('source_id')) as Row | undefined;
    return row ? String(row.source_id) : null;
  }
}
