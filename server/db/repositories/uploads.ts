/**
 * Knex implementation of the resumable uploads' rows (migration 20261128_0103_file_uploads;
 * server/storage/tus/). State changes are conditional updates (`where state = …`), so two
 * processes finishing or attaching one upload cannot both succeed. Deleting a `stored` row
 * deletes a reference to stored bytes: the key is queued for removal in the same transaction
 * (stored-files.ts), as deleting a file row does.
 */
import type { Executor } from '../rows.js';
import { queueRemovals } from './stored-files.js';
import type { ExpiredUpload, FileUpload, StoredBytes, UploadRepository, UploadState } from '../../storage/tus/ports.js';

const TABLE = 'file_uploads';

export class KnexUploadRepository implements UploadRepository {
  constructor(private readonly db: Executor) {}

  async insert(upload: FileUpload): Promise<void> {
    await this.db(TABLE).insert(toRow(upload));
  }

  async find(id: string): Promise<FileUpload | null> {
    const row = await this.db(TABLE).where({ id }).first();
    return row ? fromRow(row) : null;
  }

  async findOwned(tenantId: string, principal: string, id: string): Promise<FileUpload | null> {
    const row = await this.db(TABLE).where({ id, tenant_id: tenantId, principal }).first();
    return row ? fromRow(row) : null;
  }

  async findByClientKey(tenantId: string, principal: string, clientKey: string): Promise<FileUpload | null> {
    const row = await this.db(TABLE).where({ tenant_id: tenantId, principal, client_key: clientKey }).first();
    return row ? fromRow(row) : null;
  }

  async markStored(id: string, bytes: StoredBytes, at: number, expiresAt: number): Promise<boolean> {
    const updated = await this.db(TABLE)
      .where({ id, state: 'receiving' })
      .update({ state: 'stored', sha256: bytes.sha256, size: bytes.size, storage_path: bytes.path, content_type: bytes.contentType, stored_at: at, updated_at: at, expires_at: expiresAt });
    return Number(updated) === 1;
  }

  async markFailed(id: string, at: number): Promise<void> {
    await this.db(TABLE).where({ id, state: 'receiving' }).update({ state: 'failed', updated_at: at });
  }

  async markAttached(id: string, target: { kind: 'event' | 'patrol'; record: string; file: string }, at: number, expiresAt: number): Promise<boolean> {
    const updated = await this.db(TABLE)
      .where({ id, state: 'stored' })
      .update({ state: 'attached', attached_kind: target.kind, attached_record: target.record, attached_file: target.file, updated_at: at, expires_at: expiresAt });
    return Number(updated) === 1;
  }

  async takeLease(id: string, lockId: string, now: number, until: number): Promise<boolean> {
    const updated = await this.db(TABLE)
      .where({ id })
      .andWhere((q) => q.whereNull('locked_until').orWhere('locked_until', '<', now))
      .update({ lock_id: lockId, locked_until: until });
    return Number(updated) === 1;
  }

  async renewLease(id: string, lockId: string, until: number): Promise<void> {
    await this.db(TABLE).where({ id, lock_id: lockId }).update({ locked_until: until });
  }

  async releaseLease(id: string, lockId: string): Promise<void> {
    await this.db(TABLE).where({ id, lock_id: lockId }).update({ lock_id: null, locked_until: null });
  }

  async deleteExpired(now: number, limit: number): Promise<ExpiredUpload[]> {
    const due: Array<{ id: string; state: string; sha256: string | null }> = await this.db(TABLE).select('id', 'state', 'sha256').where('expires_at', '<', now).orderBy('expires_at').limit(limit);
    const deleted: ExpiredUpload[] = [];
    // NOTE: one conditional DELETE per row (knex has no DELETE … RETURNING on SQLite): of two
    // sweepers only the one whose statement deleted the row handles it, and a row finished or
    // attached meanwhile (its state and expiry changed) is left alone.
    for (const row of due) {
      if (Number(await this.db(TABLE).where({ id: row.id, state: row.state }).andWhere('expires_at', '<', now).delete()) === 1) {
        deleted.push({ id: row.id, state: row.state as UploadState, sha256: row.sha256 ?? null });
      }
    }
    await queueRemovals(this.db, deleted.filter((row) => row.state === 'stored' && row.sha256).map((row) => row.sha256!));
    return deleted;
  }

  async delete(id: string): Promise<void> {
    const row: { state: string; sha256: string | null } | undefined = await this.db(TABLE).where({ id }).first('state', 'sha256');
    if (!row || Number(await this.db(TABLE).where({ id, state: row.state }).delete()) !== 1) return;
    if (row.state === 'stored' && row.sha256) await queueRemovals(this.db, [row.sha256]);
  }
}

function toRow(upload: FileUpload): Record<string, unknown> {
  return {
    id: upload.id, tenant_id: upload.tenantId, principal: upload.principal, user_id: upload.userId, device_id: upload.deviceId,
    client_key: upload.clientKey, length: upload.length, sha256_claimed: upload.sha256Claimed, filename: upload.filename, state: upload.state,
    sha256: upload.sha256, size: upload.size, storage_path: upload.storagePath, content_type: upload.contentType,
    attached_kind: upload.attachedKind, attached_record: upload.attachedRecord, attached_file: upload.attachedFile,
    created_at: upload.createdAt, updated_at: upload.updatedAt, expires_at: upload.expiresAt, stored_at: upload.storedAt,
  };
}

function fromRow(row: Record<string, any>): FileUpload {
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: row.id, tenantId: row.tenant_id, principal: row.principal, userId: row.user_id ?? null, deviceId: row.device_id ?? null,
    clientKey: row.client_key ?? null, length: Number(row.length), sha256Claimed: row.sha256_claimed, filename: row.filename, state: row.state,
    sha256: row.sha256 ?? null, size: number(row.size), storagePath: row.storage_path ?? null, contentType: row.content_type ?? null,
    attachedKind: row.attached_kind ?? null, attachedRecord: row.attached_record ?? null, attachedFile: row.attached_file ?? null,
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), expiresAt: Number(row.expires_at), storedAt: number(row.stored_at),
  };
}
