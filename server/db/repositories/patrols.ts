import type { Knex } from 'knex';
import type { NewPatrol, PatrolRepository, ResolvedPatrolFilter } from '../../domain/patrols/ports.js';
import type { Patrol, PatrolFile, PatrolNote, PatrolSegment, PatrolUpdate } from '../../domain/patrols/model.js';
import type { Dialect } from '../knex.js';
import { currentWriteScope } from '../../domain/write-scope.js';
import type { Executor } from '../rows.js';
import { KeyedWriteBatches } from '../write-batches.js';
import type { TrackedTransaction } from '../tracked-transaction.js';
import type { ChangeSet } from '../../domain/sync/ports.js';
import { queueRemovals } from './stored-files.js';
import { insertNewPatrol, insertNewPatrolsPostgres } from './patrol-create.js';
import { fileRow, noteRow, patrolRow, segmentRow, toFile, toNote, toPatrol, toSegment, toUpdate, updateRow } from './patrol-rows.js';

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Patrols with their segments, notes, files and updates. Every write marks its root patrol on
 * the sync feed (linkEvent also the event); a note or a file also moves the patrol's
 * `updated_at` (issue 25 (c): so that `updated_since` readers see it).
 */
export class KnexPatrolRepository implements PatrolRepository {
  /**
   * PostgreSQL, outside a transaction: concurrent creates of one tenant go together, one
   * statement a batch in one tracked transaction, so the tenant's counter row is locked once per
   * batch, not once per create.
   */
  private readonly createBatches: KeyedWriteBatches<NewPatrol, number> | null;

  /**
   * `changes`: the transaction's ChangeSet. `tracked` (outside a transaction only): how a create
   * takes a transaction of its own with the store's pre-commit hook; without it a create outside
   * a transaction throws like every tracked write there.
   */
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    private readonly changes: ChangeSet,
    private readonly tracked?: TrackedTransaction,
  ) {
    this.createBatches = dialect === 'postgres' && !db.isTransaction && tracked
      ? new KeyedWriteBatches((tenantId, writes) => tracked(async (trx, changes) => {
        for (const write of writes) changes.mark('patrol', tenantId, write.patrol.id);
        return insertNewPatrolsPostgres(trx, tenantId, writes);
      }))
      : null;
  }

  async createPatrol(write: NewPatrol): Promise<number> {
    const { tenantId, id } = write.patrol;
    // A create sent with an Idempotency-Key takes a transaction of its own: a group commit runs
    // under the request that started it, so its key hook would see that request's key.
    if (this.createBatches && !currentWriteScope()?.claim) return this.createBatches.submit(tenantId, write);
    if (this.db.isTransaction || !this.tracked) {
      this.changes.mark('patrol', tenantId, id);
      return insertNewPatrol(this.db, this.dialect, write);
    }
    return this.tracked(async (trx, changes) => {
      changes.mark('patrol', tenantId, id);
      return insertNewPatrol(trx, this.dialect, write);
    });
  }

  /** A child row changed at `at`: the patrol changes with it, its `updated_at` never moving back. */
  private async childChanged(tenantId: string, patrolId: string, at: number): Promise<void> {
    this.changes.mark('patrol', tenantId, patrolId);
    await this.db('patrols').where({ tenant_id: tenantId, id: patrolId }).andWhere('updated_at', '<', at).update({ updated_at: at });
  }

  async updatePatrol(patrol: Patrol): Promise<void> {
    this.changes.mark('patrol', patrol.tenantId, patrol.id);
    const { id, tenant_id, created_at, serial_number, ...changes } = patrolRow(patrol);
    await this.db('patrols').where({ id, tenant_id }).update(changes);
  }

  async deletePatrol(tenantId: string, id: string): Promise<boolean> {
    this.changes.mark('patrol', tenantId, id);
    const segments = this.db('patrol_segments').select('id').where({ tenant_id: tenantId, patrol_id: id });
    // The events its segments listed show the patrol in their `patrol_segments`: they change with it.
    const linked = await this.db('segment_events').distinct('event_id').where({ tenant_id: tenantId }).whereIn('segment_id', segments);
    for (const row of linked) this.changes.mark('event', tenantId, row.event_id as string);
    const files = await this.db('patrol_files').select('sha256').where({ tenant_id: tenantId, patrol_id: id });
    await queueRemovals(this.db, files.map((row) => row.sha256 as string));
    // NOTE: as events.delete: the children explicitly, whatever SQLite's foreign-key pragma.
    await this.db('segment_events').where({ tenant_id: tenantId }).whereIn('segment_id', this.db('patrol_segments').select('id').where({ tenant_id: tenantId, patrol_id: id })).delete();
    for (const table of ['patrol_segments', 'patrol_notes', 'patrol_files', 'patrol_updates']) await this.db(table).where({ tenant_id: tenantId, patrol_id: id }).delete();
    return Number(await this.db('patrols').where({ tenant_id: tenantId, id }).delete()) === 1;
  }

  async findPatrol(tenantId: string, id: string): Promise<Patrol | null> {
    const row = await this.db('patrols').where({ tenant_id: tenantId, id }).first();
    return row ? toPatrol(row) : null;
  }

  async listPatrols(tenantId: string, filter: ResolvedPatrolFilter, now: number, page: { offset: number; limit: number }) {
    const query = this.db('patrols').where('patrols.tenant_id', tenantId);
    this.applyFilter(query, filter, now);
    const count = await query.clone().count({ n: '*' }).first();
    const rows = await query
      .orderByRaw("CASE patrols.state WHEN 'open' THEN 0 WHEN 'done' THEN 1 ELSE 2 END")
      .orderBy([{ column: 'patrols.created_at', order: 'desc' }, { column: 'patrols.serial_number', order: 'desc' }])
      .offset(page.offset)
      .limit(page.limit);
    return { total: Number(count?.n ?? 0), patrols: rows.map(toPatrol) };
  }

  /** Date ranges compare the stored window; statuses are the contract's derived states. */
  private applyFilter(query: Knex.QueryBuilder, filter: ResolvedPatrolFilter, now: number): void {
    const { dateRange } = filter;
    if (dateRange) {
      query.whereNotNull('patrols.window_start');
      if (filter.overlap) {
        if (dateRange.upper !== null) query.where('patrols.window_start', '<=', dateRange.upper);
        if (dateRange.lower !== null) query.where((q) => q.where('patrols.open_ended', true).orWhere('patrols.window_end', '>=', dateRange.lower!));
      } else {
        if (dateRange.lower !== null) query.where('patrols.window_start', '>=', dateRange.lower);
        if (dateRange.upper !== null) query.where('patrols.window_start', '<=', dateRange.upper);
      }
    }
    if (filter.text) {
      const pattern = likePattern(filter.text);
      query.where((q) =>
        q.whereRaw("lower(coalesce(patrols.title, '')) LIKE ? ESCAPE '\\'", [pattern])
          .orWhereRaw("lower(coalesce(patrols.objective, '')) LIKE ? ESCAPE '\\'", [pattern])
          .orWhere('patrols.serial_number', /^\d{1,9}$/.test(filter.text!) ? Number(filter.text) : -1),
      );
    }
    const segmentsWith = (column: string, values: string[]) =>
      this.db('patrol_segments').select(this.db.raw('1')).whereRaw('patrol_segments.tenant_id = patrols.tenant_id AND patrol_segments.patrol_id = patrols.id').whereIn(column, values);
    if (filter.patrolTypeIds) query.whereExists(segmentsWith('patrol_segments.patrol_type_id', filter.patrolTypeIds));
    if (filter.trackedBy) query.whereExists(segmentsWith('patrol_segments.leader_id', filter.trackedBy));
    if (filter.excludeEmpty) query.where('patrols.segment_count', '>', 0);
    if (filter.updatedSince !== null && filter.updatedSince !== undefined) query.where('patrols.updated_at', '>=', filter.updatedSince);
    if (filter.statuses) {
      const statuses = filter.statuses;
      query.where((q) => {
        if (statuses.includes('done')) q.orWhere('patrols.state', 'done');
        if (statuses.includes('cancelled')) q.orWhere('patrols.state', 'cancelled');
        if (statuses.includes('active')) q.orWhere((s) => s.where('patrols.state', 'open').whereNotNull('patrols.actual_start'));
        if (statuses.includes('scheduled')) q.orWhere((s) => s.where('patrols.state', 'open').whereNull('patrols.actual_start').where((w) => w.whereNull('patrols.scheduled_start').orWhere('patrols.scheduled_start', '>=', now)));
        if (statuses.includes('overdue')) q.orWhere((s) => s.where('patrols.state', 'open').whereNull('patrols.actual_start').where('patrols.scheduled_start', '<', now));
      });
    }
  }

  async segmentsOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolSegment[]> {
    if (patrolIds.length === 0) return [];
    const rows = await this.db('patrol_segments').where({ tenant_id: tenantId }).whereIn('patrol_id', [...patrolIds]).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toSegment);
  }

  async findSegment(tenantId: string, id: string): Promise<PatrolSegment | null> {
    const row = await this.db('patrol_segments').where({ tenant_id: tenantId, id }).first();
    return row ? toSegment(row) : null;
  }

  async insertSegment(segment: PatrolSegment): Promise<void> {
    this.changes.mark('patrol', segment.tenantId, segment.patrolId);
    await this.db('patrol_segments').insert(segmentRow(segment));
  }

  async updateSegment(segment: PatrolSegment): Promise<void> {
    this.changes.mark('patrol', segment.tenantId, segment.patrolId);
    const { id, tenant_id, created_at, ...changes } = segmentRow(segment);
    await this.db('patrol_segments').where({ id, tenant_id }).update(changes);
  }

  async listSegments(tenantId: string, page: { offset: number; limit: number }) {
    const count = await this.db('patrol_segments').where({ tenant_id: tenantId }).count({ n: '*' }).first();
    const rows = await this.db('patrol_segments').where({ tenant_id: tenantId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]).offset(page.offset).limit(page.limit);
    return { total: Number(count?.n ?? 0), segments: rows.map(toSegment) };
  }

  async eventIdsOf(tenantId: string, segmentIds: readonly string[]): Promise<Map<string, string[]>> {
    const map = new Map<string, string[]>();
    if (segmentIds.length === 0) return map;
    for (const row of await this.db('segment_events').where({ tenant_id: tenantId }).whereIn('segment_id', [...segmentIds]).orderBy('event_id')) {
      map.set(row.segment_id, [...(map.get(row.segment_id) ?? []), row.event_id]);
    }
    return map;
  }

  async linkEvent(tenantId: string, segmentId: string, eventId: string): Promise<void> {
    this.changes.mark('event', tenantId, eventId);
    const segment = await this.db('patrol_segments').select('patrol_id').where({ tenant_id: tenantId, id: segmentId }).first();
    if (segment) this.changes.mark('patrol', tenantId, segment.patrol_id as string);
    await this.db('segment_events').insert({ tenant_id: tenantId, segment_id: segmentId, event_id: eventId }).onConflict(['tenant_id', 'segment_id', 'event_id']).ignore();
  }

  async notesOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolNote[]> {
    if (patrolIds.length === 0) return [];
    return (await this.db('patrol_notes').where({ tenant_id: tenantId }).whereIn('patrol_id', [...patrolIds]).orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toNote);
  }

  async insertNote(note: PatrolNote): Promise<void> {
    await this.childChanged(note.tenantId, note.patrolId, note.updatedAt);
    await this.db('patrol_notes').insert(noteRow(note));
  }

  async updateNote(note: PatrolNote): Promise<void> {
    await this.childChanged(note.tenantId, note.patrolId, note.updatedAt);
    const { id, tenant_id, created_at, ...changes } = noteRow(note);
    await this.db('patrol_notes').where({ id, tenant_id }).update(changes);
  }

  async filesOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolFile[]> {
    if (patrolIds.length === 0) return [];
    const rows = await this.db('patrol_files').where({ tenant_id: tenantId }).whereIn('patrol_id', [...patrolIds])
      .orderByRaw('CASE WHEN ordernum IS NULL THEN 1 ELSE 0 END').orderBy([{ column: 'ordernum' }, { column: 'created_at' }, { column: 'id' }]);
    return rows.map(toFile);
  }

  async insertFile(file: PatrolFile): Promise<void> {
    await this.childChanged(file.tenantId, file.patrolId, file.updatedAt);
    await this.db('patrol_files').insert(fileRow(file));
  }

  async updateFile(file: PatrolFile): Promise<void> {
    await this.childChanged(file.tenantId, file.patrolId, file.updatedAt);
    const { id, tenant_id, created_at, ...changes } = fileRow(file);
    await this.db('patrol_files').where({ id, tenant_id }).update(changes);
  }

  async updatesOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolUpdate[]> {
    if (patrolIds.length === 0) return [];
    // The user's names as they are now (the original shows the account): a user removed since leaves them out.
    const rows = await this.db('patrol_updates')
      .leftJoin('users', (join) => join.on('users.id', '=', 'patrol_updates.user_id').andOn('users.tenant_id', '=', 'patrol_updates.tenant_id'))
      .select('patrol_updates.*', 'users.first_name', 'users.last_name')
      .where('patrol_updates.tenant_id', tenantId).whereIn('patrol_updates.patrol_id', [...patrolIds])
      .orderBy([{ column: 'patrol_updates.time', order: 'desc' }, { column: 'patrol_updates.id' }]);
    return rows.map(toUpdate);
  }

  async insertUpdate(update: PatrolUpdate): Promise<void> {
    this.changes.mark('patrol', update.tenantId, update.patrolId);
    await this.db('patrol_updates').insert(updateRow(update));
  }

  async dueForCompletion(now: number, limit: number) {
    const rows = await this.db('patrols').select('id', 'tenant_id').where({ state: 'open' }).whereNotNull('all_ended_at').where('all_ended_at', '<=', now).orderBy('all_ended_at').limit(limit);
    return rows.map((row: { id: string; tenant_id: string }) => ({ id: row.id, tenantId: row.tenant_id }));
  }

  async completeIfDue(tenantId: string, id: string, now: number): Promise<boolean> {
    this.changes.mark('patrol', tenantId, id);
    const count = await this.db('patrols').where({ tenant_id: tenantId, id, state: 'open' }).whereNotNull('all_ended_at').where('all_ended_at', '<=', now)
      .update({ state: 'done', updated_at: now, revision: this.db.raw('revision + 1') });
    return count === 1;
  }
}
