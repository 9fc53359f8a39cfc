import type { Subject, SubjectStatus } from '../../domain/model.js';
import type { SensorSubjectRepository, SubjectWithStatus } from '../../domain/ports.js';
import { type Executor, parseJsonColumn } from '../rows.js';
import { fromDbMillis, fromDbMillisOrNull } from '../time.js';
import { toSubject, toSubjectRecord } from './subjects.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

type Row = Record<string, unknown>;

const CHUNK = 400;

/** A subject_status row with a position as the domain reads it (a row without one is no status). */
export const toStatus = (row: Row): SubjectStatus => ({
  subjectId: row.subject_id as string,
  tenantId: row.tenant_id as string,
  sourceId: (row.source_id as string | null) ?? null,
  recordedAt: fromDbMillis(row.recorded_at),
  latitude: Number(row.latitude),
  longitude: Number(row.longitude),
  radioRecordedAt: fromDbMillisOrNull(row.radio_recorded_at),
  radioState: parseJsonColumn<Record<string, unknown> | null>(row.radio_state, null),
  updatedAt: fromDbMillis(row.updated_at),
});

/** Subject lookups for sensor intake, and subjects read back with their status and groups. */
export class KnexSensorSubjectRepository implements SensorSubjectRepository {
  /** `changes`: updateKind marks the subject on the sync feed (and moves its revision by one). */
  constructor(
    private readonly db: Executor,
    private readonly changes: ChangeSet,
  ) {}

  async findByIds(tenantId: string, ids: readonly string[]): Promise<Subject[]> {
    return this.chunked(ids, (part) => this.db('subjects').where({ tenant_id: tenantId }).whereIn('id', part));
  }

  async findByNames(tenantId: string, names: readonly string[]): Promise<Subject[]> {
    const subjects = await this.chunked(names, (part) => this.db('subjects').where({ tenant_id: tenantId }).whereIn('name', part));
    return subjects.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async groupNamesOf(subjectIds: readonly string[]): Promise<Map<string, string[]>> {
    const groups = new Map<string, string[]>();
    for (let i = 0; i < subjectIds.length; i += CHUNK) {
      const rows = await this.db('subject_group_members as m')
        .join('subject_groups as g', 'g.id', 'm.group_id')
        .whereIn('m.subject_id', subjectIds.slice(i, i + CHUNK))
        .select('m.subject_id', 'g.name')
        .orderBy('g.name');
      for (const row of rows) (groups.get(row.subject_id) ?? groups.set(row.subject_id, []).get(row.subject_id)!).push(row.name as string);
    }
    return groups;
  }

  async updateKind(tenantId: string, subjectId: string, subjectType: string, subjectSubtype: string, at: number): Promise<void> {
    this.changes.mark('subject', tenantId, subjectId);
    await this.db('subjects')
      .where({ tenant_id: tenantId, id: subjectId })
      .update({ subject_type: subjectType, subject_subtype: subjectSubtype, updated_at: at, revision: this.db.raw('revision + 1') });
  }

  async listWithStatus(tenantId: string, includeInactive: boolean, updatedSince: number | null = null): Promise<SubjectWithStatus[]> {
    const query = this.db('subjects').where({ tenant_id: tenantId });
    if (!includeInactive) query.where({ is_active: true });
    if (updatedSince !== null) {
      // Both sides read a (tenant_id, updated_at) index (migration 20261123_0601_offline_pull).
      // Cleared positions count too (rows without one): the pull must see the position go.
      const moved = this.db('subject_status').select('subject_id').where({ tenant_id: tenantId }).andWhere('updated_at', '>=', updatedSince);
      query.where((q) => q.where('updated_at', '>=', updatedSince).orWhereIn('id', moved));
    }
    const subjects = (await query.orderBy([{ column: 'name' }, { column: 'id' }])).map(toSubjectRecord);
    return this.withStatus(tenantId, subjects);
  }

  async findWithStatus(tenantId: string, id: string): Promise<SubjectWithStatus | null> {
    const row = await this.db('subjects').where({ tenant_id: tenantId, id }).first();
    if (!row) return null;
    const [found] = await this.withStatus(tenantId, [toSubjectRecord(row)]);
    return found ?? null;
  }

  private async withStatus(tenantId: string, subjects: Subject[]): Promise<SubjectWithStatus[]> {
    const ids = subjects.map((subject) => subject.id);
    const statuses = new Map<string, SubjectStatus>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      // A row without a position (cleared: subject-status.ts) is no status.
      const rows = await this.db('subject_status').where({ tenant_id: tenantId }).whereIn('subject_id', ids.slice(i, i + CHUNK)).whereNotNull('recorded_at');
      for (const row of rows) statuses.set(row.subject_id as string, toStatus(row));
    }
    const groups = await this.groupNamesOf(ids);
    return subjects.map((subject) => ({ subject, status: statuses.get(subject.id) ?? null, groups: groups.get(subject.id) ?? [] }));
  }

  private async chunked(values: readonly string[], query: (part: string[]) => Promise<Row[]>): Promise<Subject[]> {
    const unique = [...new Set(values)];
    const found: Subject[] = [];
    for (let i = 0; i < unique.length; i += CHUNK) found.push(...(await query(unique.slice(i, i + CHUNK))).map(toSubject));
    return found;
  }
}
