import { randomUUID } from 'node:crypto';
import { toStatus } from './sensors-subjects.js';
import type { Knex } from 'knex';
import type { Subject, SubjectStatus } from '../../domain/model.js';
import type { SubjectListFilter, SubjectPatch, SubjectRecord, SubjectView } from '../../domain/subjects/model.js';
import type { SubjectRepository } from '../../domain/ports.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbBool, fromDbMillis } from '../time.js';
import type { ChangeSet } from '../../domain/sync/ports.js';

type Row = Record<string, unknown>;

export const toSubject = (row: Row): Subject => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  name: row.name as string,
  subjectType: row.subject_type as string,
  subjectSubtype: row.subject_subtype as string,
  isActive: fromDbBool(row.is_active),
  additional: parseJsonColumn<Record<string, unknown>>(row.additional, {}),
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
  revision: Number(row.revision ?? 1),
});

/**
 * Subjects and their groups. A subject's create and a group membership mark the subject on the
 * sync feed; a group itself, and who may view it, are no fed record. A subject's `revision` is 1
 * on insert and moves by one with each membership it gains (issue 26 §2).
 */
export class KnexSubjectRepository implements SubjectRepository {
  constructor(
    private readonly db: Executor,
    private readonly changes: ChangeSet,
  ) {}

  async patrolLeaders(tenantId: string, viewerUserId: string | null): Promise<Subject[]> {
    const groups = this.db('subject_groups').select('id').where({ tenant_id: tenantId, is_patrol_leader_group: true });
    if (viewerUserId !== null) groups.whereIn('id', this.db('user_subject_groups').select('group_id').where({ user_id: viewerUserId }));
    const rows = await this.db('subjects')
      .where({ tenant_id: tenantId, is_active: true })
      .whereIn('id', this.db('subject_group_members').select('subject_id').whereIn('group_id', groups))
      .orderBy([{ column: 'name' }, { column: 'id' }]);
    return rows.map(toSubject);
  }

  async groupsWithSubjects(tenantId: string, viewerUserId: string | null): Promise<Array<{ id: string; name: string; subjects: Subject[] }>> {
    const groups = this.db('subject_groups').select('id', 'name').where({ tenant_id: tenantId }).orderBy([{ column: 'name' }, { column: 'id' }]);
    if (viewerUserId !== null) groups.whereIn('id', this.db('user_subject_groups').select('group_id').where({ user_id: viewerUserId }));
    const groupRows = (await groups) as Array<{ id: string; name: string }>;
    if (groupRows.length === 0) return [];
    const members = await this.db('subject_group_members as m')
      .join('subjects as s', 's.id', 'm.subject_id')
      .select('m.group_id', 's.*')
      .where({ 's.tenant_id': tenantId, 's.is_active': true })
      .whereIn('m.group_id', groupRows.map((group) => group.id))
      .orderBy([{ column: 's.name' }, { column: 's.id' }]);
    return groupRows.map((group) => ({ id: group.id, name: group.name, subjects: members.filter((row: Row) => row.group_id === group.id).map(toSubject) }));
  }

  async findMany(tenantId: string, ids: readonly string[]): Promise<Subject[]> {
    if (ids.length === 0) return [];
    return (await this.db('subjects').where({ tenant_id: tenantId }).whereIn('id', [...ids])).map(toSubject);
  }

  async insertSubject(subject: Subject): Promise<void> {
    this.changes.mark('subject', subject.tenantId, subject.id);
    await this.db('subjects').insert({
      id: subject.id,
      tenant_id: subject.tenantId,
      name: subject.name,
      subject_type: subject.subjectType,
      subject_subtype: subject.subjectSubtype,
      is_active: subject.isActive,
      additional: jsonColumn(subject.additional),
      created_at: subject.createdAt,
      updated_at: subject.updatedAt,
      revision: 1,
    });
  }

  async ensureGroup(tenantId: string, name: string, isPatrolLeaderGroup: boolean, at: number): Promise<string> {
    await this.db('subject_groups')
      .insert({ id: randomUUID(), tenant_id: tenantId, name, is_patrol_leader_group: isPatrolLeaderGroup, created_at: at })
      .onConflict(['tenant_id', 'name'])
      .ignore();
    const row = await this.db('subject_groups').select('id').where({ tenant_id: tenantId, name }).first();
    return row.id as string;
  }

  /** A membership the subject already has changes nothing (no revision bump). */
  async addToGroup(groupId: string, subjectId: string): Promise<void> {
    // The group row names the tenant (the port's arguments do not).
    const group = await this.db('subject_groups').select('tenant_id').where({ id: groupId }).first();
    if (group) this.changes.mark('subject', group.tenant_id as string, subjectId);
    const member = await this.db('subject_group_members').select('subject_id').where({ group_id: groupId, subject_id: subjectId }).first();
    if (member) return;
    // NOTE: two writers adding the same membership at once (PostgreSQL) may both bump: the
    // revision then moves by two, still monotonic.
    await this.db('subject_group_members').insert({ group_id: groupId, subject_id: subjectId }).onConflict(['group_id', 'subject_id']).ignore();
    const subjects = this.db('subjects').where({ id: subjectId });
    if (group) subjects.andWhere({ tenant_id: group.tenant_id });
    await subjects.update({ revision: this.db.raw('revision + 1') });
  }

  async allowUserToView(userId: string, groupId: string): Promise<void> {
    await this.db('user_subject_groups').insert({ user_id: userId, group_id: groupId }).onConflict(['user_id', 'group_id']).ignore();
  }
}

// ---- the subject side (issue 27): used by KnexSubjectSourceRepository (subject-sources.ts) ----

const PROFILE_COLUMNS = { commonName: 'common_name', sex: 'sex', region: 'region', country: 'country', hex: 'hex' } as const;

export const toSubjectRecord = (row: Row): SubjectRecord => ({
  ...toSubject(row),
  commonName: (row.common_name as string | null) ?? null,
  sex: (row.sex as string | null) ?? null,
  region: (row.region as string | null) ?? null,
  country: (row.country as string | null) ?? null,
  hex: (row.hex as string | null) ?? null,
});

/** `%`, `_` and the escape itself taken literally in a LIKE pattern (both dialects: ESCAPE '\'). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The tenant's subjects matching `filter`, as one query builder (not yet ordered or paged). */
function filteredSubjects(db: Executor, tenantId: string, filter: SubjectListFilter): Knex.QueryBuilder {
  const query = db('subjects as s').where('s.tenant_id', tenantId);
  if (!filter.includeInactive) query.where('s.is_active', true);
  if (filter.name !== null) query.whereRaw("lower(s.name) LIKE ? ESCAPE '\\'", [`%${likeLiteral(filter.name.toLowerCase())}%`]);
  if (filter.groupId !== null) {
    const groups = db('subject_groups').select('id').where({ tenant_id: tenantId, id: filter.groupId });
    query.whereIn('s.id', db('subject_group_members').select('subject_id').whereIn('group_id', groups));
  }
  if (filter.updatedSince !== null) {
    const since = filter.updatedSince;
    // Cleared positions too (rows without one): the pull must see the position go.
    const moved = db('subject_status').select('subject_id').where({ tenant_id: tenantId }).andWhere('updated_at', '>=', since);
    query.where((q) => q.where('s.updated_at', '>=', since).orWhereIn('s.id', moved));
  }
  if (filter.bbox !== null) {
    const [west, south, east, north] = filter.bbox;
    // A row without a position is in no box (NULL is never BETWEEN).
    const inBox = db('subject_status').select('subject_id').where({ tenant_id: tenantId }).whereBetween('latitude', [south, north]);
    // A box across the antimeridian has west > east.
    if (west <= east) inBox.whereBetween('longitude', [west, east]);
    else inBox.where((q) => q.where('longitude', '>=', west).orWhere('longitude', '<=', east));
    query.whereIn('s.id', inBox);
  }
  return query;
}

/** Subjects with their status and group names, in the given order. */
export async function subjectViews(db: Executor, tenantId: string, subjects: SubjectRecord[]): Promise<SubjectView[]> {
  const ids = subjects.map((subject) => subject.id);
  const statuses = new Map<string, SubjectStatus>();
  const groups = new Map<string, string[]>();
  const devices = new Map<string, { sourceId: string; provider: string }>();
  for (let i = 0; i < ids.length; i += 400) {
    const part = ids.slice(i, i + 400);
    // A row without a position (cleared: subject-status.ts) is no status.
    for (const row of await db('subject_status').where({ tenant_id: tenantId }).whereIn('subject_id', part).whereNotNull('recorded_at')) statuses.set(row.subject_id as string, toStatus(row));
    const open = await db('subject_sources as a')
      .join('sensor_sources as so', 'so.id', 'a.source_id')
      .join('sensor_providers as p', 'p.id', 'so.provider_id')
      .where('a.tenant_id', tenantId)
      .whereIn('a.subject_id', part)
      .whereNull('a.range_upper')
      .select('a.subject_id', 'a.source_id', 'p.provider_key', 'p.display_name')
      .orderBy([{ column: 'a.subject_id' }, { column: 'a.range_lower', order: 'desc' }]);
    for (const row of open) if (!devices.has(row.subject_id as string)) devices.set(row.subject_id as string, { sourceId: row.source_id as string, provider: (row.display_name as string) || (row.provider_key as string) });
    const members = await db('subject_group_members as m').join('subject_groups as g', 'g.id', 'm.group_id').whereIn('m.subject_id', part).select('m.subject_id', 'g.name').orderBy('g.name');
    for (const row of members) (groups.get(row.subject_id) ?? groups.set(row.subject_id, []).get(row.subject_id)!).push(row.name as string);
  }
  return subjects.map((subject) => ({ subject, status: statuses.get(subject.id) ?? null, groups: groups.get(subject.id) ?? [], device: devices.get(subject.id) ?? null }));
}

/** One page of the filtered subjects (by name, then id) and, when paged, how many match in all. */
export async function listSubjectViews(db: Executor, tenantId: string, filter: SubjectListFilter, page: { offset: number; limit: number }, withTotal: boolean): Promise<{ total: number | null; items: SubjectView[] }> {
  const rows = await filteredSubjects(db, tenantId, filter).select('s.*').orderBy([{ column: 's.name' }, { column: 's.id' }]).offset(page.offset).limit(page.limit);
  const total = withTotal ? Number((await filteredSubjects(db, tenantId, filter).count({ n: '*' }).first())?.n ?? 0) : null;
  return { total, items: await subjectViews(db, tenantId, rows.map(toSubjectRecord)) };
}

export async function findSubjectRecords(db: Executor, tenantId: string, ids: readonly string[]): Promise<SubjectRecord[]> {
  if (ids.length === 0) return [];
  return (await db('subjects').where({ tenant_id: tenantId }).whereIn('id', [...ids])).map(toSubjectRecord);
}

export function subjectRow(subject: SubjectRecord): Row {
  return {
    id: subject.id, tenant_id: subject.tenantId, name: subject.name, subject_type: subject.subjectType, subject_subtype: subject.subjectSubtype,
    is_active: subject.isActive, additional: jsonColumn(subject.additional), created_at: subject.createdAt, updated_at: subject.updatedAt, revision: 1,
    common_name: subject.commonName, sex: subject.sex, region: subject.region, country: subject.country, hex: subject.hex,
  };
}

/** The columns a patch writes (the caller moves `updated_at` and the revision). */
export function subjectPatchRow(patch: SubjectPatch): Row {
  const row: Row = {};
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.subjectType !== undefined) row.subject_type = patch.subjectType;
  if (patch.subjectSubtype !== undefined) row.subject_subtype = patch.subjectSubtype;
  if (patch.isActive !== undefined) row.is_active = patch.isActive;
  if (patch.additional !== undefined) row.additional = jsonColumn(patch.additional);
  for (const [key, column] of Object.entries(PROFILE_COLUMNS)) {
    const value = patch[key as keyof typeof PROFILE_COLUMNS];
    if (value !== undefined) row[column] = value;
  }
  return row;
}
