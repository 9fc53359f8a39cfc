import type { ActivityEvent, EventFile } from '../../domain/model.js';
import type { EventFileRecord, EventListFilter, EventRecord, EventTypeFacts } from '../../domain/events/model.js';
import type { EventRepository } from '../../domain/events/ports.js';
import type { Dialect } from '../knex.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbMillis } from '../time.js';
import { applyEventFilter } from './events-filter.js';
import { queueRemovals } from './stored-files.js';
import type { ChangeSet } from '../../domain/sync/ports.js';
import { type DetailsOf, type UsageSink, usageDeltas } from '../../domain/events/usage-deltas.js';

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
  schemaRevision: nullableNumber(row.schema_revision),
});

/**
 * The columns a write sets (serial number and revision are the repository's to manage).
 * `schema_revision` only when the event carries it (EventWrite): absent, an insert leaves it
 * null and an update leaves it as stored.
 */
export const eventRow = (event: ActivityEvent & { schemaRevision?: number | null }): Row => ({
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
  ...(event.schemaRevision !== undefined ? { schema_revision: event.schemaRevision } : {}),
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
 * insert, update and delete add what they change in `event_detail_usage` (issue 28) to the
 * transaction's usage tally, applied before its commit: they are the only writers of
 * `events.event_type`/`event_details` (touch and the serial write neither).
 */
export class KnexEventRepository implements EventRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    private readonly changes: ChangeSet,
    /** The transaction's usage tally: written once before its commit (store.ts), never here. */
    private readonly usage: UsageSink,
  ) {}

  /**
   * The stored type and details, read before a change; on PostgreSQL the row stays locked until the
   * transaction ends, so a concurrent writer of the same event cannot slip between this read and
   * the write (its usage difference would then be computed from a stale row).
   */
  private async storedDetails(tenantId: string, id: string): Promise<DetailsOf | null> {
    const query = this.db('events').select('event_type', 'event_details').where({ tenant_id: tenantId, id });
    if (this.dialect === 'postgres') query.forUpdate();
    const row = await query.first();
    return row ? { eventType: row.event_type as string, details: parseJsonColumn<Record<string, unknown>>(row.event_details, {}) } : null;
  }

  /**
   * The provisional serial must not collide with another uncommitted create: on PostgreSQL it is
   * minus the backend's process id (one transaction per connection at a time); SQLite has one
   * writer at a time. It never commits: assignSerialNumber replaces it in the same transaction.
   */
  async insert(event: ActivityEvent): Promise<void> {
    this.changes.mark('event', event.tenantId, event.id);
    const provisional = this.dialect === 'postgres' ? this.db.raw('-pg_backend_pid()') : -1;
    await this.db('events').insert({ ...eventRow(event), serial_number: provisional, revision: 1 });
    this.usage.add(event.tenantId, usageDeltas(null, { eventType: event.eventType, details: event.eventDetails }));
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
    const before = await this.storedDetails(event.tenantId, event.id);
    const query = this.db('events').where({ id, tenant_id });
    if (expectedRevision !== undefined) query.andWhere('revision', expectedRevision);
    const count = await query.update({ ...changes, revision: this.db.raw('revision + 1') });
    if (Number(count) !== 1) return false;
    this.usage.add(event.tenantId, usageDeltas(before, { eventType: event.eventType, details: event.eventDetails }));
    await this.touchRelated(event.tenantId, event.id, event.updatedAt);
    return true;
  }

  /**
   * The events related to `id` (its incidents, the events it contains) embed it in their bodies
   * (`contains[].related_event`, `is_contained_in`): they change with it, so their revisions
   * (ETags) move and they reach the sync feed. One level: a related event embeds no relations.
   */
  private async touchRelated(tenantId: string, id: string, at: number): Promise<void> {
    const related = await this.db('event_relationships').where({ tenant_id: tenantId }).andWhere((q) => q.where('from_event_id', id).orWhere('to_event_id', id));
    const others = [...new Set(related.map((row) => (row.from_event_id === id ? row.to_event_id : row.from_event_id) as string))];
    for (const other of others) await this.touch(tenantId, other, at);
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
    // Its incidents and contained events show it: they change with it (revisions too).
    // NOTE: the port gives no time here; updated_at only shows when (never orders the feed).
    await this.touchRelated(tenantId, id, Date.now());
    await this.db('event_relationships').where({ tenant_id: tenantId }).andWhere((q) => q.where('from_event_id', id).orWhere('to_event_id', id)).delete();
    await this.db('segment_events').where({ tenant_id: tenantId, event_id: id }).delete();
    const before = await this.storedDetails(tenantId, id);
    if (Number(await this.db('events').where({ tenant_id: tenantId, id }).delete()) !== 1) return false;
    this.usage.add(tenantId, usageDeltas(before, null));
    return true;
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

  async findMany(tenantId: string, ids: readonly string[]): Promise<EventRecord[]> {
    if (ids.length === 0) return [];
    return (await this.db('events').where({ tenant_id: tenantId }).whereIn('id', [...new Set(ids)])).map(toEvent);
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

  async count(tenantId: string, filter: EventListFilter): Promise<number> {
    const query = this.db('events').where('events.tenant_id', tenantId);
    applyEventFilter(query, filter);
    const row = await query.count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  /** Active v2 types first (a migrated type wins), then active v1 types; the schemas are not read. */
  async typeFacts(tenantId: string, values: readonly string[]): Promise<Map<string, EventTypeFacts>> {
    const out = new Map<string, EventTypeFacts>();
    const wanted = [...new Set(values)].filter((value) => value.length <= 50);
    if (wanted.length === 0) return out;
    const v2 = await this.db('event_types').where({ tenant_id: tenantId, is_active: true }).whereIn('value', wanted).select('value', 'icon', 'category', 'display', 'is_collection');
    for (const row of v2) out.set(row.value, { iconId: (row.icon as string) || (row.value as string), category: row.category as string, display: row.display as string, isCollection: Boolean(row.is_collection) });
    const rest = wanted.filter((value) => !out.has(value));
    if (rest.length === 0) return out;
    const v1 = await this.db('event_types_v1').where({ tenant_id: tenantId, is_active: true }).whereIn('value', rest).select('value', 'category', 'display');
    for (const row of v1) out.set(row.value, { iconId: row.value as string, category: row.category as string, display: row.display as string, isCollection: false });
    return out;
  }

  async exportBatch(tenantId: string, filter: EventListFilter, after: EventRecord | null, limit: number): Promise<EventRecord[]> {
    const query = this.db('events').where('events.tenant_id', tenantId);
    applyEventFilter(query, filter);
    const { column, descending } = filter.sort;
    // The id follows the sort's direction so the keyset is one row-value comparison (both
    // dialects), which an index on (tenant_id, <column>) serves; an OR of two would scan.
    const order = descending ? 'desc' : 'asc';
    // NOTE: the plain bound beside it lets PostgreSQL use the (tenant_id, <column>) index range.
    if (after) {
      query.where(`events.${column}`, descending ? '<=' : '>=', sortValue(after, column));
      query.whereRaw(`(events.${column}, events.id) ${descending ? '<' : '>'} (?, ?)`, [sortValue(after, column), after.id]);
    }
    const rows = await query.orderBy([{ column: `events.${column}`, order }, { column: 'events.id', order }]).limit(limit);
    return rows.map(toEvent);
  }

  async exportTypes(tenantId: string, filter: EventListFilter, max: number): Promise<string[]> {
    // No event's details are read: the values come from the (tenant_id, event_type) index (or
    // the rows the filter's own index finds), deduplicated by the database.
    const query = this.db('events').where('events.tenant_id', tenantId);
    applyEventFilter(query, filter);
    const rows = await query.distinct('events.event_type').orderBy('events.event_type').limit(max);
    return rows.map((row: Row) => String(row.event_type));
  }
}

const sortValue = (event: EventRecord, column: EventListFilter['sort']['column']): number =>
  column === 'time' ? event.time : column === 'updated_at' ? event.updatedAt : column === 'created_at' ? event.createdAt : event.serialNumber;
