import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AssignmentFilter, CoveredFix, PageWindow, SubjectSourceRepository } from '../../domain/subjects/sources-ports.js';
import type { Assignment, ProviderRecord, SourcePatch, SourceRecord, SubjectListFilter, SubjectPatch, SubjectRecord } from '../../domain/subjects/model.js';
import { isUuid } from '../../domain/ids.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import type { Dialect } from '../knex.js';
import { fromDbMillis, fromDbMillisOrNull } from '../time.js';
import type { ChangeSet } from '../../domain/sync/ports.js';
import { toProvider, toSource } from './sensors.js';
import { lockStatuses, newestCoveredFix, setStatusPosition, subjectsPositionedBy } from './subject-status.js';
import { findSubjectRecords, listSubjectViews, subjectPatchRow, subjectRow, subjectViews, toSubjectRecord } from './subjects.js';

type Row = Record<string, unknown>;

const CHUNK = 400;

const toProviderRecord = (row: Row): ProviderRecord => ({
  ...toProvider(row),
  displayName: (row.display_name as string | null) ?? '',
  additional: parseJsonColumn<Record<string, unknown>>(row.additional, {}),
});

const toSourceRecord = (row: Row): SourceRecord => ({
  ...toSource(row),
  additional: parseJsonColumn<Record<string, unknown>>(row.additional, {}),
  providerKey: row.provider_key as string,
});

const toAssignment = (row: Row): Assignment => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  subjectId: row.subject_id as string,
  sourceId: row.source_id as string,
  rangeLower: fromDbMillis(row.range_lower),
  rangeUpper: fromDbMillisOrNull(row.range_upper),
  additional: parseJsonColumn<Record<string, unknown>>(row.additional, {}),
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

/** Prefixed columns of a joined row back to a table's own names. */
const unprefix = (row: Row, prefix: string): Row => Object.fromEntries(Object.entries(row).filter(([key]) => key.startsWith(prefix)).map(([key, value]) => [key.slice(prefix.length), value]));
const ASSIGNMENT_COLUMNS = ['id', 'tenant_id', 'subject_id', 'source_id', 'range_lower', 'range_upper', 'additional', 'created_at', 'updated_at'];

/**
 * The subject side's storage (domain/subjects/sources-ports.ts). Subjects' list and row helpers
 * live in subjects.ts; sources are `sensor_sources` joined to their provider for its key.
 */
export class KnexSubjectSourceRepository implements SubjectSourceRepository {
  constructor(
    protected readonly db: Executor,
    protected readonly dialect: Dialect,
    protected readonly changes: ChangeSet,
  ) {}

  // ---- subjects ----

  listSubjects(tenantId: string, filter: SubjectListFilter, page: PageWindow, withTotal: boolean) {
    return listSubjectViews(this.db, tenantId, filter, page, withTotal);
  }

  findSubjects(tenantId: string, ids: readonly string[]) {
    return findSubjectRecords(this.db, tenantId, ids);
  }

  subjectViews(tenantId: string, subjects: SubjectRecord[]) {
    return subjectViews(this.db, tenantId, subjects);
  }

  async insertSubject(subject: SubjectRecord): Promise<void> {
    this.changes.mark('subject', subject.tenantId, subject.id);
    await this.db('subjects').insert(subjectRow(subject));
  }

  async updateSubject(tenantId: string, id: string, patch: SubjectPatch, at: number): Promise<boolean> {
    this.changes.mark('subject', tenantId, id);
    const changed = await this.db('subjects').where({ tenant_id: tenantId, id }).update({ ...subjectPatchRow(patch), updated_at: at, revision: this.db.raw('revision + 1') });
    return Number(changed) > 0;
  }

  /** The row goes (its status, memberships and assignments with it); the feed logs a delete. */
  async deleteSubject(tenantId: string, id: string): Promise<boolean> {
    this.changes.mark('subject', tenantId, id);
    // Explicit rather than left to ON DELETE: the rows the subject leaves behind are decided here.
    await this.db('subject_group_members').where({ subject_id: id }).whereIn('group_id', this.db('subject_groups').select('id').where({ tenant_id: tenantId })).delete();
    await this.db('subject_status').where({ tenant_id: tenantId, subject_id: id }).delete();
    await this.db('subject_sources').where({ tenant_id: tenantId, subject_id: id }).delete();
    await this.db('sensor_sources').where({ tenant_id: tenantId, subject_id: id }).update({ subject_id: null });
    await this.db('observations').where({ tenant_id: tenantId, subject_id: id }).update({ subject_id: null });
    return Number(await this.db('subjects').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  async findGroup(tenantId: string, groupId: string) {
    if (!isUuid(groupId)) return null;
    const row = await this.db('subject_groups').where({ tenant_id: tenantId, id: groupId.toLowerCase() }).first('id', 'name');
    return row ? { id: row.id as string, name: row.name as string } : null;
  }

  async removeFromGroup(tenantId: string, groupId: string, subjectIds: readonly string[], at: number): Promise<string[]> {
    const members = (await this.db('subject_group_members as m').join('subjects as s', 's.id', 'm.subject_id').where({ 'm.group_id': groupId, 's.tenant_id': tenantId }).whereIn('m.subject_id', [...subjectIds]).select('m.subject_id')).map((row: Row) => row.subject_id as string);
    for (const id of members.sort()) {
      this.changes.mark('subject', tenantId, id);
      await this.db('subject_group_members').where({ group_id: groupId, subject_id: id }).delete();
      await this.db('subjects').where({ tenant_id: tenantId, id }).update({ updated_at: at, revision: this.db.raw('revision + 1') });
    }
    return members;
  }

  // ---- providers ----

  async listProviders(tenantId: string, page: PageWindow) {
    const base = () => this.db('sensor_providers').where({ tenant_id: tenantId });
    const rows = await base().orderBy([{ column: 'provider_key' }, { column: 'id' }]).offset(page.offset).limit(page.limit);
    const total = Number((await base().count({ n: '*' }).first())?.n ?? 0);
    return { total, items: rows.map(toProviderRecord) };
  }

  async findProvider(tenantId: string, idOrKey: string) {
    const query = this.db('sensor_providers').where({ tenant_id: tenantId });
    if (isUuid(idOrKey)) query.where((q) => q.where('id', idOrKey.toLowerCase()).orWhere('provider_key', idOrKey));
    else query.where('provider_key', idOrKey);
    const row = await query.first();
    return row ? toProviderRecord(row) : null;
  }

  async insertProvider(p: ProviderRecord): Promise<void> {
    await this.db('sensor_providers').insert({
      id: p.id, tenant_id: p.tenantId, provider_key: p.key, provider_type: p.providerType, display_name: p.displayName, additional: jsonColumn(p.additional),
      last_heartbeat: null, last_heartbeat_at: null, created_at: p.createdAt, updated_at: p.updatedAt,
    });
  }

  async updateProvider(tenantId: string, id: string, patch: { displayName?: string; additional?: Record<string, unknown> }, at: number): Promise<void> {
    const row: Row = { updated_at: at };
    if (patch.displayName !== undefined) row.display_name = patch.displayName;
    if (patch.additional !== undefined) row.additional = jsonColumn(patch.additional);
    await this.db('sensor_providers').where({ tenant_id: tenantId, id }).update(row);
  }

  // ---- sources ----

  private sources(tenantId: string): Knex.QueryBuilder {
    return this.db('sensor_sources as s').join('sensor_providers as p', 'p.id', 's.provider_id').where('s.tenant_id', tenantId).select('s.*', 'p.provider_key');
  }

  async listSources(tenantId: string, page: PageWindow) {
    const rows = await this.sources(tenantId).orderBy([{ column: 's.created_at' }, { column: 's.id' }]).offset(page.offset).limit(page.limit);
    const total = Number((await this.db('sensor_sources').where({ tenant_id: tenantId }).count({ n: '*' }).first())?.n ?? 0);
    return { total, items: rows.map(toSourceRecord) };
  }

  async findSourceCandidates(tenantId: string, keys: readonly string[]): Promise<Map<string, SourceRecord[]>> {
    const found = new Map<string, SourceRecord[]>();
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const part = unique.slice(i, i + CHUNK);
      const byId = new Map<string, SourceRecord>();
      const ids = part.filter(isUuid).map((id) => id.toLowerCase());
      if (ids.length > 0) for (const row of await this.sources(tenantId).whereIn('s.id', ids)) byId.set(row.id as string, toSourceRecord(row));
      // Manufacturer ids are unique per provider: a key names at most one source per provider.
      const byManufacturer = new Map<string, SourceRecord[]>();
      const rows = await this.sources(tenantId).whereIn('s.manufacturer_id', part).orderBy([{ column: 's.created_at' }, { column: 's.id' }]);
      for (const row of rows) (byManufacturer.get(row.manufacturer_id as string) ?? byManufacturer.set(row.manufacturer_id as string, []).get(row.manufacturer_id as string)!).push(toSourceRecord(row));
      // An id names one source whatever its case; only a key that is no source's id is a manufacturer id.
      for (const key of part) {
        const source = isUuid(key) ? byId.get(key.toLowerCase()) : undefined;
        const candidates = source ? [source] : byManufacturer.get(key);
        if (candidates) found.set(key, candidates);
      }
    }
    return found;
  }

  async insertSource(source: SourceRecord): Promise<void> {
    await this.db('sensor_sources').insert({
      id: source.id, tenant_id: source.tenantId, provider_id: source.providerId, manufacturer_id: source.manufacturerId, source_type: source.sourceType,
      model_name: source.modelName, subject_id: source.subjectId, additional: jsonColumn(source.additional), created_at: source.createdAt, updated_at: source.updatedAt,
    });
  }

  async updateSource(tenantId: string, id: string, patch: SourcePatch, at: number): Promise<void> {
    const row: Row = { updated_at: at };
    if (patch.manufacturerId !== undefined) row.manufacturer_id = patch.manufacturerId;
    if (patch.sourceType !== undefined) row.source_type = patch.sourceType;
    if (patch.modelName !== undefined) row.model_name = patch.modelName;
    if (patch.additional !== undefined) row.additional = jsonColumn(patch.additional);
    await this.db('sensor_sources').where({ tenant_id: tenantId, id }).update(row);
  }

  /** The source, its observations and assignments; its subjects' positions are the caller's to recompute. */
  async deleteSource(tenantId: string, id: string): Promise<boolean> {
    await this.db('subject_sources').where({ tenant_id: tenantId, source_id: id }).delete();
    await this.db('observations').where({ tenant_id: tenantId, source_id: id }).delete();
    await this.db('subject_status').where({ tenant_id: tenantId, source_id: id }).update({ source_id: null });
    return Number(await this.db('sensor_sources').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  // ---- assignments ----

  async listAssignments(tenantId: string, filter: AssignmentFilter, page: PageWindow) {
    const base = () => {
      const query = this.db('subject_sources').where({ tenant_id: tenantId });
      if (filter.subjectIds) query.whereIn('subject_id', filter.subjectIds);
      if (filter.sourceIds) query.whereIn('source_id', filter.sourceIds);
      return query;
    };
    const rows = await base().orderBy([{ column: 'range_lower' }, { column: 'id' }]).offset(page.offset).limit(page.limit);
    const total = Number((await base().count({ n: '*' }).first())?.n ?? 0);
    return { total, items: rows.map(toAssignment) };
  }

  async findAssignment(tenantId: string, id: string) {
    if (!isUuid(id)) return null;
    const row = await this.db('subject_sources').where({ tenant_id: tenantId, id: id.toLowerCase() }).first();
    return row ? toAssignment(row) : null;
  }

  async insertAssignment(a: Assignment): Promise<void> {
    await this.db('subject_sources').insert({
      id: a.id, tenant_id: a.tenantId, subject_id: a.subjectId, source_id: a.sourceId, range_lower: a.rangeLower, range_upper: a.rangeUpper,
      additional: jsonColumn(a.additional), created_at: a.createdAt, updated_at: a.updatedAt,
    });
  }

  async updateAssignment(tenantId: string, id: string, patch: { subjectId?: string; rangeLower?: number; rangeUpper?: number | null; additional?: Record<string, unknown> }, at: number): Promise<void> {
    const row: Row = { updated_at: at };
    if (patch.subjectId !== undefined) row.subject_id = patch.subjectId;
    if (patch.rangeLower !== undefined) row.range_lower = patch.rangeLower;
    if (patch.rangeUpper !== undefined) row.range_upper = patch.rangeUpper;
    if (patch.additional !== undefined) row.additional = jsonColumn(patch.additional);
    await this.db('subject_sources').where({ tenant_id: tenantId, id }).update(row);
  }

  async deleteAssignment(tenantId: string, id: string): Promise<boolean> {
    return Number(await this.db('subject_sources').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  async subjectsOfSource(tenantId: string, sourceId: string) {
    const rows = await this.db('subject_sources as a')
      .join('subjects as s', 's.id', 'a.subject_id')
      .where({ 'a.tenant_id': tenantId, 'a.source_id': sourceId, 's.tenant_id': tenantId })
      .select('s.*', ...ASSIGNMENT_COLUMNS.map((c) => `a.${c} as a_${c}`))
      .orderBy([{ column: 'a.range_lower', order: 'desc' }, { column: 'a.id' }])
      .limit(1000);
    return rows.map((row: Row) => ({ subject: toSubjectRecord(row), assignment: toAssignment(unprefix(row, 'a_')) }));
  }

  async sourcesOfSubject(tenantId: string, subjectId: string) {
    const rows = await this.db('subject_sources as a')
      .join('sensor_sources as s', 's.id', 'a.source_id')
      .join('sensor_providers as p', 'p.id', 's.provider_id')
      .where({ 'a.tenant_id': tenantId, 'a.subject_id': subjectId, 's.tenant_id': tenantId })
      .select('s.*', 'p.provider_key', ...ASSIGNMENT_COLUMNS.map((c) => `a.${c} as a_${c}`))
      .orderBy([{ column: 'a.range_lower', order: 'desc' }, { column: 'a.id' }])
      .limit(1000);
    return rows.map((row: Row) => ({ source: toSourceRecord(row), assignment: toAssignment(unprefix(row, 'a_')) }));
  }

  async openAssignment(tenantId: string, sourceId: string, subjectId: string, lower: number, at: number): Promise<void> {
    const open = (await this.db('subject_sources').where({ tenant_id: tenantId, source_id: sourceId }).whereNull('range_upper')).map(toAssignment);
    const same = open.find((a) => a.subjectId === subjectId);
    // An open assignment starting after `lower` (an older fix sent late) keeps running: the new
    // one ends where it starts, and the source keeps tracking its subject.
    let upper: number | null = null;
    for (const a of open) {
      if (a === same) continue;
      if (a.rangeLower < lower) await this.db('subject_sources').where({ id: a.id }).update({ range_upper: lower, updated_at: at });
      else upper = Math.min(upper ?? a.rangeLower, a.rangeLower);
    }
    if (same) {
      if (lower < same.rangeLower) await this.db('subject_sources').where({ id: same.id }).update({ range_lower: lower, updated_at: at });
      return;
    }
    await this.insertAssignment({ id: randomUUID(), tenantId, subjectId, sourceId, rangeLower: lower, rangeUpper: upper === lower ? lower + 1 : upper, additional: {}, createdAt: at, updatedAt: at });
    if (upper !== null) await this.refreshCurrentSubject(tenantId, sourceId, at);
  }

  async reattribute(tenantId: string, sourceId: string, span: { lower: number; upper: number | null } | null = null): Promise<void> {
    const assignments = (await this.db('subject_sources').where({ tenant_id: tenantId, source_id: sourceId }).orderBy([{ column: 'range_lower' }, { column: 'id' }])).map(toAssignment);
    // Only the fixes of the span that changed are rewritten (a collar's history can be millions).
    const within = (query: Knex.QueryBuilder, lower: number, upper: number | null) => {
      query.andWhere('recorded_at', '>=', span ? Math.max(lower, span.lower) : lower);
      const end = span?.upper === null || span === null ? upper : upper === null ? span.upper : Math.min(upper, span.upper);
      if (end !== null) query.andWhere('recorded_at', '<', end);
      return query;
    };
    await within(this.db('observations').where({ tenant_id: tenantId, source_id: sourceId }), span?.lower ?? Number.MIN_SAFE_INTEGER, span?.upper ?? null).update({ subject_id: null });
    // Later-starting assignments win where two overlap.
    for (const a of assignments) {
      if (span && ((span.upper !== null && a.rangeLower >= span.upper) || (a.rangeUpper !== null && a.rangeUpper <= span.lower))) continue;
      await within(this.db('observations').where({ tenant_id: tenantId, source_id: sourceId }), a.rangeLower, a.rangeUpper).update({ subject_id: a.subjectId });
    }
  }

  async subjectsAt(tenantId: string, points: ReadonlyArray<{ sourceId: string; recordedAt: number }>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const sourceIds = [...new Set(points.map((p) => p.sourceId))];
    const bySource = new Map<string, Assignment[]>();
    for (let i = 0; i < sourceIds.length; i += CHUNK) {
      const rows = await this.db('subject_sources').where({ tenant_id: tenantId }).whereIn('source_id', sourceIds.slice(i, i + CHUNK)).orderBy('range_lower', 'desc');
      for (const row of rows.map(toAssignment)) (bySource.get(row.sourceId) ?? bySource.set(row.sourceId, []).get(row.sourceId)!).push(row);
    }
    for (const { sourceId, recordedAt } of points) {
      const covering = bySource.get(sourceId)?.find((a) => a.rangeLower <= recordedAt && (a.rangeUpper === null || recordedAt < a.rangeUpper));
      if (covering) out.set(`${sourceId}\n${recordedAt}`, covering.subjectId);
    }
    return out;
  }

  async refreshCurrentSubject(tenantId: string, sourceId: string, now: number): Promise<void> {
    const rows = (await this.db('subject_sources').where({ tenant_id: tenantId, source_id: sourceId }).orderBy([{ column: 'range_lower', order: 'desc' }, { column: 'id' }])).map(toAssignment);
    // Who covers now; else the latest-starting assignment; none left: no subject.
    const current = rows.find((a) => a.rangeLower <= now && (a.rangeUpper === null || now < a.rangeUpper)) ?? rows[0] ?? null;
    await this.db('sensor_sources').where({ tenant_id: tenantId, id: sourceId }).update({ subject_id: current?.subjectId ?? null, updated_at: now });
  }

  // ---- subject status (subject-status.ts) ----

  lockStatuses(tenantId: string, subjectIds: readonly string[]) {
    return lockStatuses(this.db, this.dialect, tenantId, subjectIds);
  }

  newestCoveredFix(tenantId: string, subjectId: string) {
    return newestCoveredFix(this.db, tenantId, subjectId);
  }

  setStatusPosition(tenantId: string, subjectId: string, fix: CoveredFix | null, at: number) {
    return setStatusPosition(this.db, tenantId, subjectId, fix, at);
  }

  subjectsPositionedBy(tenantId: string, sourceId: string) {
    return subjectsPositionedBy(this.db, tenantId, sourceId);
  }
}
