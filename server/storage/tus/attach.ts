import type { Principal } from '../../domain/context.js';
import { BodyReader } from '../../domain/catalog/fields.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import type { Repositories } from '../../domain/ports.js';
import { ATTACHED_KEEP_MS, type FileUpload, uploadPrincipal } from './ports.js';

/** The body of an attach (the batched push's `event.file`/`patrol.file` entry): the new file's id, the upload's id. */
export interface AttachUploadBody {
  id: string;
  upload: string;
  comment?: string;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Checks an attach body (the push hands its entry's body through unchecked): 400 with per-field issues. */
export function readAttachBody(body: unknown): AttachUploadBody {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(['id', 'upload', 'comment'], []);
  const id = reader.string('id', { max: 36, pattern: UUID, patternHint: 'The new file\'s id: a UUID (the outbox entry\'s).', required: true });
  const upload = reader.string('upload', { max: 64, pattern: /^[0-9a-f]{32}$/, patternHint: 'The upload\'s id: the last segment of its Location.', required: true });
  const comment = reader.string('comment', { max: 2000 });
  reader.finish('The attach is not valid.');
  return { id: id!.toLowerCase(), upload: upload!, ...(comment !== undefined ? { comment } : {}) };
}

export type TakenUpload = { repeat: false; upload: FileUpload } | { repeat: true; upload: FileUpload };

/**
 * In the attach's transaction: takes the caller's finished upload for file `target.file` of a
 * record (the row becomes `attached`, conditionally: of two concurrent attaches one wins).
 * Another tenant's or principal's upload is not found (404). The same attach repeated (same
 * file id, same record) answers `repeat`: the caller returns the file it made; attached to
 * anything else, or not finished (receiving, failed), is a 409.
 */
export async function takeUpload(repos: Repositories, principal: Principal, uploadId: string, target: { kind: 'event' | 'patrol'; record: string; file: string }, now: number): Promise<TakenUpload> {
  const upload = await repos.uploads.findOwned(principal.tenantId, uploadPrincipal(principal), uploadId);
  if (!upload) throw new NotFoundError('No such upload.');
  if (upload.state === 'attached') {
    if (upload.attachedKind === target.kind && upload.attachedRecord === target.record && upload.attachedFile === target.file) return { repeat: true, upload };
    throw new ConflictError('This upload is attached to another file already; upload the file again to attach it twice.');
  }
  if (upload.state === 'receiving') throw new ConflictError('The upload is not finished: send its remaining bytes first (HEAD gives the offset).');
  if (upload.state !== 'stored') throw new ConflictError('The upload failed its checksum and was removed; upload the file again.');
  if (!(await repos.uploads.markAttached(upload.id, target, now, now + ATTACHED_KEEP_MS))) throw new ConflictError('The upload was attached by another request meanwhile.');
  return { repeat: false, upload };
}
