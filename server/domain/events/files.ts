import { cleanFilename } from '../client-input.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import type { FileStore, StagedFile } from '../../storage/file-store.js';
import type { FileRemovals } from '../../storage/file-sweeper.js';
import { BodyReader } from '../catalog/fields.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { ConflictError, InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Repositories, Store } from '../ports.js';
import type { EventFileRecord } from './model.js';
import type { EventService } from './service.js';
import { type AttachUploadBody, readAttachBody, takeUpload } from '../../storage/tus/attach.js';

export type { AttachUploadBody } from '../../storage/tus/attach.js';

/**
 * Files of an event (`activity/event/<id>/files/`, `/file/<file_id>`): the bytes in the
 * content-addressed file store, the metadata in the database. The content type is sniffed from
 * the bytes, never taken from the name. Reading needs view_event, attaching and removing
 * change_event; `authorizeUpload` is called before the body is received. A deleted file's bytes
 * are removed once no row of any tenant refers to them (server/storage/file-sweeper.ts).
 */
export class EventFileService {
  constructor(private readonly deps: { store: Store; clock: Clock; files: FileStore; removals: FileRemovals; events: EventService; maxFileBytes: number }) {}

  get maxFileBytes(): number {
    return this.deps.maxFileBytes;
  }

  async list(ctx: RequestContext, eventId: string): Promise<EventFileRecord[]> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    const event = await this.deps.events.find(this.deps.store.repos, tenantId, eventId);
    return this.deps.store.repos.events.filesOf(tenantId, event.id);
  }

  async get(ctx: RequestContext, eventId: string, fileId: string): Promise<EventFileRecord> {
    const { tenantId } = requirePermission(ctx, 'view_event');
    return this.find(this.deps.store.repos, tenantId, eventId, fileId);
  }

  /** Refuses (403, 404) before the upload's bytes are read. */
  async authorizeUpload(ctx: RequestContext, eventId: string): Promise<void> {
    const { tenantId } = requirePermission(ctx, 'change_event');
    await this.deps.events.find(this.deps.store.repos, tenantId, eventId);
  }

  /** Stores an uploaded file (already staged) and its metadata, in one transaction. */
  async create(ctx: RequestContext, eventId: string, upload: { staged: StagedFile | null; filename: string; fields: Record<string, string[]> }): Promise<EventFileRecord> {
    const principal = requirePermission(ctx, 'change_event');
    if (!upload.staged) throw InputError.field('filecontent.file', 'required', 'No file was uploaded.', ['Send the file in the multipart field filecontent.file.']);
    const staged = upload.staged;
    const comment = readComment(upload.fields);
    // Checked, then the bytes go into the store before the transaction: an upload (to a bucket,
    // say) must not hold a transaction open, nor SQLite's single writer.
    await this.deps.events.find(this.deps.store.repos, principal.tenantId, eventId);
    const stored = await staged.commit();
    return this.deps.store.transaction(async (repos) => {
      const event = await this.deps.events.find(repos, principal.tenantId, eventId);
      const now = this.deps.clock.now();
      const file: EventFileRecord = {
        id: randomUUID(), tenantId: principal.tenantId, eventId: event.id, sha256: stored.sha256, path: stored.path, size: stored.size,
        contentType: stored.contentType, filename: cleanFilename(upload.filename), createdAt: now, comment,
        createdByUserId: actingUser(principal)?.id ?? null, updatedAt: now,
      };
      await repos.events.attachFile(file);
      await this.deps.events.record(repos, principal, event.id, 'add_eventfile', `File Added: ${file.filename}`, now);
      await repos.events.touch(principal.tenantId, event.id, now);
      return file;
    });
  }

  /**
   * Attaches a finished resumable upload (server/storage/tus/) as the file `body.id` of the
   * event, in one transaction, as `create` stores a multipart upload (file row, history entry,
   * change log): the upload must be `stored` and the caller's (tenant and principal), and
   * becomes `attached`. The same attach repeated (same file id and upload) answers the same
   * file; the upload attached elsewhere is 409. Needs change_event.
   */
  async attachUpload(ctx: RequestContext, eventId: string, body: AttachUploadBody): Promise<EventFileRecord & { sha256: string }> {
    const principal = requirePermission(ctx, 'change_event');
    const input = readAttachBody(body);
    return this.deps.store.transaction(async (repos) => {
      const event = await this.deps.events.find(repos, principal.tenantId, eventId);
      const now = this.deps.clock.now();
      const existing = (await repos.events.filesOf(principal.tenantId, event.id)).find((candidate) => candidate.id === input.id);
      const taken = await takeUpload(repos, principal, input.upload, { kind: 'event', record: event.id, file: input.id }, now);
      if (taken.repeat) {
        if (!existing) throw new NotFoundError('The file this upload was attached as has been deleted since.');
        return existing;
      }
      if (existing) throw new ConflictError('A file with this id already exists.');
      const upload = taken.upload;
      const file: EventFileRecord = {
        id: input.id, tenantId: principal.tenantId, eventId: event.id, sha256: upload.sha256!, path: upload.storagePath!, size: upload.size!,
        contentType: upload.contentType!, filename: cleanFilename(upload.filename), createdAt: now, comment: input.comment ?? '',
        createdByUserId: actingUser(principal)?.id ?? null, updatedAt: now,
      };
      await repos.events.attachFile(file);
      await this.deps.events.record(repos, principal, event.id, 'add_eventfile', `File Added: ${file.filename}`, now);
      await repos.events.touch(principal.tenantId, event.id, now);
      return file;
    });
  }

  async delete(ctx: RequestContext, eventId: string, fileId: string): Promise<void> {
    const principal = requirePermission(ctx, 'change_event');
    const deleted = await this.deps.store.transaction(async (repos) => {
      const file = await this.find(repos, principal.tenantId, eventId, fileId);
      const now = this.deps.clock.now();
      await repos.events.deleteFile(principal.tenantId, file.eventId, file.id);
      await this.deps.events.record(repos, principal, file.eventId, 'delete_eventfile', `File Deleted: ${file.filename}`, now);
      await repos.events.touch(principal.tenantId, file.eventId, now);
      return file;
    });
    // Committed: the bytes go unless another row (of any tenant) still refers to them.
    await this.deps.removals.released([deleted.sha256]);
  }

  private async find(repos: Repositories, tenantId: string, eventId: string, fileId: string): Promise<EventFileRecord> {
    const event = await this.deps.events.find(repos, tenantId, eventId);
    const file = isUuid(fileId) ? (await repos.events.filesOf(tenantId, event.id)).find((candidate) => candidate.id === fileId.toLowerCase()) : undefined;
    if (!file) throw new NotFoundError('No such file.');
    return file;
  }
}

/** The form's `comment` (the last one sent); nothing else but the file is accepted. */
function readComment(fields: Record<string, string[]>): string {
  const single = Object.fromEntries(Object.entries(fields).map(([name, values]) => [name, values[values.length - 1]]));
  const reader = BodyReader.of(single);
  reader.rejectUnknown(['comment'], ['filecontent.file', 'usercontent_type', 'event']);
  const comment = reader.string('comment', { max: 2000 });
  reader.finish('The file is not valid.');
  return comment ?? '';
}
