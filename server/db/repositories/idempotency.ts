/**
 * Knex implementation of the idempotency store (migration 20261127_0101_idempotency_keys).
 * `claim` runs inside the write's own transaction (the unit of work's pre-commit hook); the
 * other methods run on their own (autocommit).
 */
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';
import type { IdempotencyRepository, KeyClaim, StoredAnswer, StoredKey } from '../../domain/idempotency/ports.js';

const TABLE = 'idempotency_keys';

export class KnexIdempotencyRepository implements IdempotencyRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  async claim(claim: KeyClaim): Promise<void> {
    await this.db(TABLE).insert({
      tenant_id: claim.tenantId,
      principal: claim.principal,
      key: claim.key,
      request_hash: claim.requestHash,
      op: claim.op,
      state: 'committed',
      record_kind: claim.recordKind,
      record_id: claim.recordId,
      created_at: claim.createdAt,
      expires_at: claim.expiresAt,
    });
  }

  async find(tenantId: string, principal: string, key: string): Promise<StoredKey | null> {
    const row = await this.db(TABLE).where({ tenant_id: tenantId, principal, key }).first();
    return row ? toStoredKey(row) : null;
  }

  async answer(tenantId: string, principal: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.db(TABLE)
      .where({ tenant_id: tenantId, principal, key })
      .update({
        state: 'answered',
        response_status: answer.status,
        response_body: answer.body === undefined ? null : JSON.stringify(answer.body),
        response_headers: JSON.stringify(answer.headers),
      });
  }

  async unstored(tenantId: string, principal: string, key: string): Promise<void> {
    await this.db(TABLE).where({ tenant_id: tenantId, principal, key, state: 'committed' }).update({ state: 'unstored' });
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
    createdAt: fromDbMillis(row.created_at),
    expiresAt: fromDbMillis(row.expires_at),
  };
}
