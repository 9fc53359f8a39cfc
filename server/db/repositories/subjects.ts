import { randomUUID } from 'node:crypto';
import type { Subject } from '../../domain/model.js';
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
