/**
 * Knex implementation of the idempotency store (migration 20261127_0101_idempotency_keys).
 * `claim` runs inside the write's own transaction (the unit of work's pre-commit hook); the
 * other methods run on their own (autocommit).
 *
 * NOTE: `record_revision`, `outcome` and `device_id` come with migration
 * 20261128_0102_merge_history. Until a database has them they are neither written nor read:
 * their presence is probed once per database (see `mergeColumns`).
 */
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';
import type { IdempotencyRepository, KeyClaim, StoredAnswer, StoredKey } from '../../domain/idempotency/ports.js';

const TABLE = 'idempotency_keys';
/** Keys per `IN (…)` list: well under both dialects' bound-parameter limits. */
const KEYS_PER_READ = 500;

/**
 * Whether a database has the merge columns, by its connection settings (shared by the root knex
 * and its transactions). A cache of a schema fact, not a service: the schema does not change
 * under a running server (migrations run before it serves).
 */
const probed = new WeakMap<object, Promise<boolean>>();

function mergeColumns(db: Executor): Promise<boolean> {
  const owner = (db.client as { config?: object }).config ?? db.client;
  let known = probed.get(owner);
  if (!known) {
    known = db.schema.hasColumn(TABLE, 'outcome').catch(() => false);
    probed.set(owner, known);
  }
  return known;
}

export class KnexIdempotencyRepository implements IdempotencyRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  async claim(claim: KeyClaim): Promise<void> {
    const merge = (await mergeColumns(this.db))
      ? { record_revision: claim.recordRevision ?? null, outcome: claim.outcome === undefined ? null : JSON.stringify(claim.outcome), device_id: claim.deviceId ?? null }
      : {};
    await this.db(TABLE).insert({
      tenant_id: claim.tenantId,
      principal: claim.principal,
      key: claim.key,
      request_hash: claim.requestHash,
      op: claim.op,
      state: claim.state ?? 'committed',
      record_kind: claim.recordKind,
      record_id: claim.recordId,
      ...merge,
      created_at: claim.createdAt,
      expires_at: claim.expiresAt,
    });
  }

  async find(tenantId: string, principal: string, key: string): Promise<StoredKey | null> {
    const row = await this.db(TABLE).where({ tenant_id: tenantId, principal, key }).first();
    return row ? toStoredKey(row) : null;
  }

  async findMany(tenantId: string, principal: string, keys: readonly string[]): Promise<Map<string, StoredKey>> {
    const found = new Map<string, StoredKey>();
    const unique = [...new Set(keys)];
    for (let start = 0; start < unique.length; start += KEYS_PER_READ) {
      const rows = await this.db(TABLE).where({ tenant_id: tenantId, principal }).whereIn('key', unique.slice(start, start + KEYS_PER_READ));
      for (const row of rows) found.set(String(row.key), toStoredKey(row));
    }
    return found;
  }

  async answer(tenantId: string, principal: string, key: string, answer: StoredAnswer, recordRevision: number | null = null): Promise<void> {
    const revision = recordRevision !== null && (await mergeColumns(this.db)) ? { record_revision: recordRevision } : {};
    await this.db(TABLE)
      .where({ tenant_id: tenantId, principal, key })
      .update({
        state: 'answered',
        response_status: answer.status,
        response_body: answer.body === undefined ? null : JSON.stringify(answer.body),
        response_headers: JSON.stringify(answer.headers),
        ...revision,
      });
  }

  async unstored(tenantId: string, principal: string, key: string): Promise<void> {
    await this.db(TABLE).where({ tenant_id: tenantId, principal, key, state: 'committed' }).update({ state: 'unstored' });
  }

  async storeOutcome(tenantId: string, principal: string, key: string, outcome: unknown, recordRevision: number | null): Promise<void> {
    const merge = (await mergeColumns(this.db)) ? { outcome: JSON.stringify(outcome), record_revision: recordRevision } : {};
    await this.db(TABLE).where({ tenant_id: tenantId, principal, key, state: 'committed' }).update({ state: 'unstored', ...merge });
  }

  async deleteExpired(now: number, limit: number): Promise<number> {
    // One batch through the expiry index; the physical row id keeps the delete to those rows.
    const rowId = this.dialect === 'postgres' ? 'ctid' : 'rowid';
    const due = this.db(TABLE).select(rowId).where('expires_at', '<', now).orderBy('expires_at').limit(limit);
    return Number(await this.db(TABLE).whereIn(rowId, due).delete());
  }
}

function toStoredKey(row: Record<string, unknown>): StoredKey {
  const answered = row.state === 'answered' && row.response_status !== null && row.response_status !== undefined;
  return {
    requestHash: String(row.request_hash).trim(),
    op: (row.op as string | null) ?? null,
    state: answered ? 'answered' : row.state === 'unstored' ? 'unstored' : 'committed',
    recordKind: (row.record_kind as string | null) ?? null,
    recordId: (row.record_id as string | null) ?? null,
    answer: answered
      ? {
          status: Number(row.response_status),
          body: row.response_body === null || row.response_body === undefined ? undefined : JSON.parse(String(row.response_body)),
          headers: row.response_headers ? (JSON.parse(String(row.response_headers)) as Record<string, string>) : {},
        }
      : null,
    recordRevision: row.record_revision === null || row.record_revision === undefined ? null : Number(row.record_revision),
    outcome: typeof row.outcome === 'string' ? (JSON.parse(row.outcome) as unknown) : null,
    createdAt: fromDbMillis(row.created_at),
    expiresAt: fromDbMillis(row.expires_at),
  };
}
