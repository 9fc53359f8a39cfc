/**
 * Resumable uploads (tus 1.0; docs/design/offline-writes-plan.md §6): the row every upload has
 * in `file_uploads`, and the repository over it. The bytes live in the tus data store while
 * `receiving`, in the content-addressed file store once `stored`.
 */
import type { Principal } from '../../domain/context.js';

export type UploadState = 'receiving' | 'stored' | 'attached' | 'failed';

export interface FileUpload {
  /** The id in the upload's URL (`/api/fieldops/v1/uploads/<id>`): 32 hex digits. */
  id: string;
  tenantId: string;
  /** `user:<user id>` or `client:<OAuth client id>` (uploadPrincipal). */
  principal: string;
  userId: string | null;
  deviceId: string | null;
  /** The creation's Idempotency-Key, if it sent one. */
  clientKey: string | null;
  length: number;
  sha256Claimed: string;
  filename: string;
  state: UploadState;
  /** Set once stored: what the file store holds. */
  sha256: string | null;
  size: number | null;
  storagePath: string | null;
  contentType: string | null;
  /** Set once attached: the file row that took the bytes over. */
  attachedKind: 'event' | 'patrol' | null;
  attachedRecord: string | null;
  attachedFile: string | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
  storedAt: number | null;
}

export interface StoredBytes {
  sha256: string;
  size: number;
  path: string;
  contentType: string;
}

/** What the upload sweep deleted: enough to remove the bytes each row held. */
export interface ExpiredUpload {
  id: string;
  state: UploadState;
  sha256: string | null;
}

export interface UploadRepository {
  /** A repeated `clientKey` of the same tenant and principal is a ConflictError. */
  insert(upload: FileUpload): Promise<void>;
  find(id: string): Promise<FileUpload | null>;
  /** Only the caller's own upload: another tenant's or principal's is null. */
  findOwned(tenantId: string, principal: string, id: string): Promise<FileUpload | null>;
  findByClientKey(tenantId: string, principal: string, clientKey: string): Promise<FileUpload | null>;
  /** `receiving` → `stored`; false when the row was not receiving (finished by another request). */
  markStored(id: string, bytes: StoredBytes, at: number, expiresAt: number): Promise<boolean>;
  /** `receiving` → `failed` (checksum mismatch). */
  markFailed(id: string, at: number): Promise<void>;
  /** `stored` → `attached`; false when the row was not stored (attached by a concurrent request). */
  markAttached(id: string, target: { kind: 'event' | 'patrol'; record: string; file: string }, at: number, expiresAt: number): Promise<boolean>;
  /** Takes the writer's lease unless another live lease holds it; false when held (or no such row). */
  takeLease(id: string, lockId: string, now: number, until: number): Promise<boolean>;
  renewLease(id: string, lockId: string, until: number): Promise<void>;
  releaseLease(id: string, lockId: string): Promise<void>;
  /**
   * Deletes up to `limit` rows past `expires_at`, each by a conditional delete (no row is handled
   * twice), queuing the bytes of `stored` ones for removal in the caller's transaction.
   */
  deleteExpired(now: number, limit: number): Promise<ExpiredUpload[]>;
  /** Deletes one row (terminated by its owner); a `stored` row's bytes are queued for removal. */
  delete(id: string): Promise<void>;
}

/** Who owns an upload: a user as the user (whatever client), an application as its client. */
export function uploadPrincipal(principal: Principal): string {
  return principal.kind === 'user' ? `user:${principal.user.id}` : `client:${principal.client.clientId}`;
}

export { CHECKSUM_MISMATCH, FILE_SHA256_HEADER, UPLOADS_PATH } from '../../../protocol/uploads.js';
/** How long an attached upload's row is kept, so a repeated attach finds it (idempotent). */
export const ATTACHED_KEEP_MS = 7 * 24 * 3600 * 1000;
