import type { ActivityEvent, EventFile } from '../../domain/model.js';
import type { EventFileRecord, EventListFilter, EventRecord } from '../../domain/events/model.js';
import type { EventRepository } from '../../domain/events/ports.js';
import type { Dialect } from '../knex.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbMillis } from '../time.js';
import { applyEventFilter } from './events-filter.js';
import { queueRemovals } from './stored-files.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

type Row = Record<string, unknown>;

const nullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export const toEvent = (row: Row): EventRecord => ({
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
  serialNumber: Number(row.serial_number),
  revision: Number(row.revision),
});

/** The columns a write sets (serial number and revision are the repository's to manage). */
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

export const toEventFile = (row: Row): EventFileRecord => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  eventId: row.event_id as string,
  sha256: row.sha256 as string,
  path: row.path as string,
  size: Number(row.size),
  contentType: row.content_type as string,
  filename: row.filename as string,
  createdAt: fromDbMillis(row.created_at),
  comment: (row.comment as string | null) ?? '',
  createdByUserId: (row.created_by_user_id as string | null) ?? null,
  updatedAt: row.updated_at === null || row.updated_at === undefined ? fromDbMillis(row.created_at) : fromDbMillis(row.updated_at),
});

/**
 * Events and their files; every read is scoped by tenant. Every write marks the event on the
 * sync feed (a delete also the patrols whose segments it was linked to: their bodies list it).
 */
export class KnexEventRepository implements EventRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    private readonly changes: ChangeSet,
  ) {}

  /**
   * The provisional serial must not collide with another uncommitted create: on PostgreSQL it is
   * minus the backend's process id (one transaction per connection at a time); SQLite has one
   * writer at a time. It never commits: assignSerialNumber replaces it in the same transaction.
   */
  async insert(event: ActivityEvent): Promise<void> {
    this.changes.mark('event', event.tenantId, event.id);
    const provisional = this.dialect === 'postgres' ? this.db.raw('-pg_backend_pid()') : -1;
    await this.db('events').insert({ ...eventRow(event), serial_number: provisional, revision: 1 });
  }

  async assignSerialNumber(tenantId: string, id: string): Promise<number> {
    this.changes.mark('event', tenantId, id);
    // Creates or advances the tenant's counter in one statement; on PostgreSQL its row lock holds
    // concurrent creators until this transaction ends, so numbers never repeat.
    const [counter] = await this.db('event_serials')
      .insert({ tenant_id: tenantId, last: 1 })
      .onConflict('tenant_id')
      .merge({ last: this.db.raw('event_serials.last + 1') })
      .returning('last');
    const serialNumber = Number((counter as { last: unknown }).last);
    await this.db('events').where({ tenant_id: tenantId, id }).update({ serial_number: serialNumber });
    return serialNumber;
  }

  async update(event: ActivityEvent, expectedRevision?: number): Promise<boolean> {
    this.changes.mark('event', event.tenantId, event.id);
    const { id, tenant_id, created_at, ...changes } = eventRow(event);
    const query = this.db('events').where({ id, tenant_id });
    if (expectedRevision !== undefined) query.andWhere('revision', expectedRevision);
    const count = await query.update({ ...changes, revision: this.db.raw('revision + 1') });
    return Number(count) === 1;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    this.changes.mark('event', tenantId, id);
    // Read before the links go: the patrols that list this event change with it.
    const linked = await this.db('patrol_segments').distinct('patrol_id').where({ tenant_id: tenantId })
      .whereIn('id', this.db('segment_events').select('segment_id').where({ tenant_id: tenantId, event_id: id }));
    for (const row of linked) this.changes.mark('patrol', tenantId, row.patrol_id as string);
    // The files' bytes go once nothing refers to them: queued in this transaction (see stored-files.ts).
    const files = await this.db('event_files').select('sha256').where({ tenant_id: tenantId, event_id: id });
    await queueRemovals(this.db, files.map((row) => row.sha256 as string));
    // NOTE: SQLite enforces ON DELETE CASCADE only with foreign keys on; delete the children
    // explicitly so both dialects behave the same whatever the pragma.
    for (const table of ['event_updates', 'event_notes', 'event_files', 'camera_trap_images']) await this.db(table).where({ tenant_id: tenantId, event_id: id }).delete();
    await this.db('segment_events').where({ tenant_id: tenantId, event_id: id }).delete();
    return Number(await this.db('events').where({ tenant_id: tenantId, id }).delete()) === 1;
  }

  /** Ordered by the filter's sort (newest time first by default), then id; only events linked to `segmentId` when given. */
  async list(tenantId: string, page: { offset: number; limit: number }, segmentId?: string, filter?: EventListFilter) {
    const query = this.db('events').where({ tenant_id: tenantId });
    if (segmentId) query.whereIn('id', this.db('segment_events').select('event_id').where({ tenant_id: tenantId, segment_id: segmentId }));
    if (filter) applyEventFilter(query, filter);
    const count = await query.clone().count({ n: '*' }).first();
    const sort = filter?.sort ?? { column: 'time', descending: true };
    const rows = await query.orderBy([{ column: sort.column, order: sort.descending ? 'desc' : 'asc' }, { column: 'id' }]).offset(page.offset).limit(page.limit);
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

  async find(tenantId: string, id: string): Promise<EventRecord | null> {
    const row = await this.db('events').where({ tenant_id: tenantId, id }).first();
    return row ? toEvent(row) : null;
  }

  async touch(tenantId: string, id: string, at: number): Promise<void> {
    this.changes.mark('event', tenantId, id);
    await this.db('events').where({ tenant_id: tenantId, id }).update({ updated_at: at, revision: this.db.raw('revision + 1') });
  }

  async attachFile(file: EventFile & Partial<Pick<EventFileRecord, 'comment' | 'createdByUserId' | 'updatedAt'>>): Promise<void> {
    this.changes.mark('event', file.tenantId, file.eventId);
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
      comment: file.comment ?? '',
      created_by_user_id: file.createdByUserId ?? null,
      updated_at: file.updatedAt ?? file.createdAt,
    });
  }

  async filesOf(tenantId: string, eventId: string): Promise<EventFileRecord[]> {
    return (await this.filesOfMany(tenantId, [eventId])).get(eventId) ?? [];
  }

  async filesOfMany(tenantId: string, eventIds: readonly string[]): Promise<Map<string, EventFileRecord[]>> {
    const map = new Map<string, EventFileRecord[]>();
    if (eventIds.length === 0) return map;
    const rows = await this.db('event_files').where({ tenant_id: tenantId }).whereIn('event_id', [...eventIds]).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    for (const file of rows.map(toEventFile)) map.set(file.eventId, [...(map.get(file.eventId) ?? []), file]);
    return map;
  }

  async deleteFile(tenantId: string, eventId: string, fileId: string): Promise<boolean> {
    this.changes.mark('event', tenantId, eventId);
    // The bytes go once no row of any tenant refers to them: queued in this transaction, checked
    // and removed after the commit (see stored-files.ts).
    const file = await this.db('event_files').select('sha256').where({ tenant_id: tenantId, event_id: eventId, id: fileId }).first();
    if (!file) return false;
    await queueRemovals(this.db, [file.sha256 as string]);
    return Number(await this.db('event_files').where({ tenant_id: tenantId, event_id: eventId, id: fileId }).delete()) === 1;
  }
}
