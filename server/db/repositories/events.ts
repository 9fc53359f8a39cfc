import type { ActivityEvent, EventFile } from '../../domain/model.js';
import type { EventRepository } from '../../domain/ports.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;

const nullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export const toEvent = (row: Row): ActivityEvent => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  eventType: row.event_type as string,
  title: row.title as string,
  time: fromDbMillis(row.time),
  latitude: nullableNumber(row.latitude),
  longitude: nullableNumber(row.longitude),
  priority: Number(row.priority),
  state: row.state as ActivityEvent['state'],
  eventDetails: parseJsonColumn<Record<string, unknown>>(row.event_details, {}),
  createdByUserId: (row.created_by_user_id as string | null) ?? null,
  createdByClientId: (row.created_by_client_id as string | null) ?? null,
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

export const eventRow = (event: ActivityEvent): Row => ({
  id: event.id,
  tenant_id: event.tenantId,
  event_type: event.eventType,
  title: event.title,
  time: event.time,
  latitude: event.latitude,
  longitude: event.longitude,
  priority: event.priority,
  state: event.state,
  event_details: jsonColumn(event.eventDetails),
  created_by_user_id: event.createdByUserId,
  created_by_client_id: event.createdByClientId,
  created_at: event.createdAt,
  updated_at: event.updatedAt,
});

export const toEventFile = (row: Row): EventFile => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  eventId: row.event_id as string,
  sha256: row.sha256 as string,
  path: row.path as string,
  size: Number(row.size),
  contentType: row.content_type as string,
  filename: row.filename as string,
  createdAt: fromDbMillis(row.created_at),
});

/** Events and their files; every read is scoped by tenant. */
export class KnexEventRepository implements EventRepository {
  constructor(private readonly db: Executor) {}

  async insert(event: ActivityEvent): Promise<void> {
    await this.db('events').insert(eventRow(event));
  }

  async update(event: ActivityEvent): Promise<void> {
    const { id, tenant_id, created_at, ...changes } = eventRow(event);
    await this.db('events').where({ id, tenant_id }).update(changes);
  }

  /** Newest first; only the events linked to `segmentId` when given. */
  async list(tenantId: string, page: { offset: number; limit: number }, segmentId?: string) {
    const query = this.db('events').where({ tenant_id: tenantId });
    if (segmentId) query.whereIn('id', this.db('segment_events').select('event_id').where({ tenant_id: tenantId, segment_id: segmentId }));
    const count = await query.clone().count({ n: '*' }).first();
    const rows = await query.orderBy([{ column: 'time', order: 'desc' }, { column: 'id' }]).offset(page.offset).limit(page.limit);
    return { total: Number(count?.n ?? 0), events: rows.map(toEvent) };
  }

  async segmentIdsOf(tenantId: string, eventIds: readonly string[]): Promise<Map<string, string[]>> {
    const map = new Map<string, string[]>();
    if (eventIds.length === 0) return map;
    for (const row of await this.db('segment_events').where({ tenant_id: tenantId }).whereIn('event_id', [...eventIds]).orderBy('segment_id')) {
      map.set(row.event_id, [...(map.get(row.event_id) ?? []), row.segment_id]);
    }
    return map;
  }

  async find(tenantId: string, id: string): Promise<ActivityEvent | null> {
    const row = await this.db('events').where({ tenant_id: tenantId, id }).first();
    return row ? toEvent(row) : null;
  }

  async touch(tenantId: string, id: string, at: number): Promise<void> {
    await this.db('events').where({ tenant_id: tenantId, id }).update({ updated_at: at });
  }

  async attachFile(file: EventFile): Promise<void> {
    await this.db('event_files').insert({
      id: file.id,
      tenant_id: file.tenantId,
      event_id: file.eventId,
      sha256: file.sha256,
      path: file.path,
      size: file.size,
      content_type: file.contentType,
      filename: file.filename,
      created_at: file.createdAt,
    });
  }

  async filesOf(tenantId: string, eventId: string): Promise<EventFile[]> {
    const rows = await this.db('event_files').where({ tenant_id: tenantId, event_id: eventId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toEventFile);
  }
}
