import type { MergeKind } from '../../../protocol/merge-fields.js';
import type { ConflictPolicy } from '../../../protocol/push.js';
import type { ConflictFilter, ConflictRepository, ConflictRow } from '../../domain/merge/ports.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;
const TABLE = 'record_conflicts';
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
/** NOTE: SQL NULL is an absent value; a JSON null is the text `null`. */
const valueColumn = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
const valueOf = (text: unknown): unknown => (text === null || text === undefined ? undefined : JSON.parse(String(text)));

const toConflict = (row: Row): ConflictRow => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  kind: row.kind as MergeKind,
  recordId: row.record_id as string,
  field: row.field as string,
  base: valueOf(row.base_value),
  mine: valueOf(row.mine_value),
  theirs: valueOf(row.theirs_value),
  baseRevision: num(row.base_revision),
  theirsRevision: num(row.theirs_revision),
  revision: Number(row.revision),
  entryKey: (row.entry_key as string | null) ?? null,
  deviceId: (row.device_id as string | null) ?? null,
  userId: (row.user_id as string | null) ?? null,
  policy: row.policy as ConflictPolicy,
  status: row.status as ConflictRow['status'],
  settledBy: (row.settled_by as ConflictRow['settledBy']) ?? null,
  settledUserId: (row.settled_user_id as string | null) ?? null,
  settledRevision: num(row.settled_revision),
  createdAt: fromDbMillis(row.created_at),
  settledAt: row.settled_at === null || row.settled_at === undefined ? null : fromDbMillis(row.settled_at),
});

/** Conflicts kept with both values (migration 20261128_0102_merge_history); every read is tenant-scoped. */
export class KnexConflictRepository implements ConflictRepository {
  constructor(private readonly db: Executor) {}

  async insert(row: ConflictRow): Promise<void> {
    await this.db(TABLE).insert({
      id: row.id, tenant_id: row.tenantId, kind: row.kind, record_id: row.recordId, field: row.field,
      base_value: valueColumn(row.base), mine_value: valueColumn(row.mine), theirs_value: valueColumn(row.theirs),
      base_revision: row.baseRevision, theirs_revision: row.theirsRevision, revision: row.revision, entry_key: row.entryKey,
      device_id: row.deviceId, user_id: row.userId, policy: row.policy, status: row.status, settled_by: row.settledBy,
      settled_user_id: row.settledUserId, settled_revision: row.settledRevision, created_at: row.createdAt, settled_at: row.settledAt,
    });
  }

  async find(tenantId: string, id: string): Promise<ConflictRow | null> {
    const row = await this.db(TABLE).where({ tenant_id: tenantId, id }).first();
    return row ? toConflict(row) : null;
  }

  async list(tenantId: string, filter: ConflictFilter, limit: number): Promise<ConflictRow[]> {
    const query = this.db(TABLE).where({ tenant_id: tenantId });
    if (filter.status) query.andWhere('status', filter.status);
    if (filter.kind) query.andWhere('kind', filter.kind);
    if (filter.recordId) query.andWhere('record_id', filter.recordId);
    return (await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]).limit(limit)).map(toConflict);
  }

  async ofEntry(tenantId: string, kind: MergeKind, recordId: string, entryKey: string): Promise<ConflictRow[]> {
    const rows = await this.db(TABLE).where({ tenant_id: tenantId, entry_key: entryKey, kind, record_id: recordId }).orderBy('field');
    return rows.map(toConflict);
  }

  async settle(row: ConflictRow, expected: Pick<ConflictRow, 'status' | 'settledBy'>): Promise<boolean> {
    const query = this.db(TABLE).where({ tenant_id: row.tenantId, id: row.id, status: expected.status });
    if (expected.settledBy === null) query.whereNull('settled_by');
    else query.andWhere('settled_by', expected.settledBy);
    const count = await query.update({
      status: row.status, settled_by: row.settledBy, settled_user_id: row.settledUserId, settled_revision: row.settledRevision, settled_at: row.settledAt,
    });
    return Number(count) === 1;
  }

  async deleteOf(tenantId: string, kind: MergeKind, recordId: string): Promise<void> {
    await this.db(TABLE).where({ tenant_id: tenantId, kind, record_id: recordId }).delete();
  }
}
