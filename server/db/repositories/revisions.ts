import type { MergeKind } from '../../../protocol/merge-fields.js';
import type { RevisionRepository, RevisionRow } from '../../domain/merge/ports.js';
import { type Executor, jsonColumn, parseJsonColumn } from '../rows.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;
const TABLE = 'record_revisions';
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

const toRevision = (row: Row): RevisionRow => ({
  tenantId: row.tenant_id as string,
  kind: row.kind as MergeKind,
  recordId: row.record_id as string,
  revision: Number(row.revision),
  action: row.action as RevisionRow['action'],
  baseRevision: num(row.base_revision),
  fields: parseJsonColumn<RevisionRow['fields']>(row.fields, {}),
  merged: parseJsonColumn<string[]>(row.merged, []),
  userId: (row.user_id as string | null) ?? null,
  clientId: (row.client_id as string | null) ?? null,
  deviceId: (row.device_id as string | null) ?? null,
  entryKey: (row.entry_key as string | null) ?? null,
  at: fromDbMillis(row.at),
});

/** The field-level history of events and patrols (migration 20261128_0102_merge_history). */
export class KnexRevisionRepository implements RevisionRepository {
  constructor(private readonly db: Executor) {}

  async append(row: RevisionRow): Promise<void> {
    await this.db(TABLE).insert({
      tenant_id: row.tenantId, kind: row.kind, record_id: row.recordId, revision: row.revision, action: row.action,
      base_revision: row.baseRevision, fields: jsonColumn(row.fields), merged: row.merged.length ? jsonColumn(row.merged) : null,
      user_id: row.userId, client_id: row.clientId, device_id: row.deviceId, entry_key: row.entryKey, at: row.at,
    });
  }

  async since(tenantId: string, kind: MergeKind, recordId: string, afterRevision: number): Promise<RevisionRow[]> {
    const rows = await this.db(TABLE).where({ tenant_id: tenantId, kind, record_id: recordId }).andWhere('revision', '>', afterRevision).orderBy('revision');
    return rows.map(toRevision);
  }

  async findByEntry(tenantId: string, kind: MergeKind, recordId: string, entryKey: string): Promise<RevisionRow | null> {
    const row = await this.db(TABLE).where({ tenant_id: tenantId, entry_key: entryKey, kind, record_id: recordId }).first();
    return row ? toRevision(row) : null;
  }

  async list(tenantId: string, kind: MergeKind, recordId: string, limit: number): Promise<RevisionRow[]> {
    const rows = await this.db(TABLE).where({ tenant_id: tenantId, kind, record_id: recordId }).orderBy('revision', 'desc').limit(limit);
    return rows.map(toRevision);
  }

  async deleteOf(tenantId: string, kind: MergeKind, recordId: string): Promise<void> {
    await this.db(TABLE).where({ tenant_id: tenantId, kind, record_id: recordId }).delete();
  }
}
