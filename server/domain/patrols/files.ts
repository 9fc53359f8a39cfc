import { cleanFilename } from '../client-input.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../db/time.js';
import type { FileStore, StagedFile } from '../../storage/file-store.js';
import { type RequestContext, actingUser, requirePermission } from '../context.js';
import { BodyReader } from '../catalog/fields.js';
import { ConflictError, InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Repositories, Store } from '../ports.js';
import type { Patrol, PatrolFile } from './model.js';
import type { PatrolService } from './service.js';
import { type AttachUploadBody, readAttachBody, takeUpload } from '../../storage/tus/attach.js';

/**
 * Files of a patrol (CONTRACT §6): the bytes live in the content-addressed file store, the
 * metadata in the database. The content type is sniffed from the bytes, never taken from the
 * client's file name; the client's name is kept only for display and downloads.
 */
export class PatrolFileService {
  /** `maxFileBytes`: uploads larger than this are 413. */
  constructor(private readonly deps: { store: Store; clock: Clock; files: FileStore; patrols: PatrolService; maxFileBytes: number }) {}

  get maxFileBytes(): number {
    return this.deps.maxFileBytes;
  }

  async list(ctx: RequestContext, patrolId: string): Promise<PatrolFile[]> {
    const { tenantId } = requirePermission(ctx, 'view_patrol');
    const patrol = await this.deps.patrols.findPatrol(this.deps.store.repos, tenantId, patrolId);
    return this.deps.store.repos.patrols.filesOf(tenantId, [patrol.id]);
  }

  async get(ctx: RequestContext, patrolId: string, fileId: string): Promise<PatrolFile> {
    const file = isUuid(fileId) ? (await this.list(ctx, patrolId)).find((candidate) => candidate.id === fileId.toLowerCase()) : undefined;
    if (!file) throw new NotFoundError('No such file.');
    return file;
  }

  /**
   * Whether the caller may add a file to this patrol: asked before the upload's body is read,
   * so that an anonymous or unpermitted caller, or an unknown patrol, costs no disk.
   */
  async authorizeUpload(ctx: RequestContext, patrolId: string): Promise<void> {
    const { tenantId } = requirePermission(ctx, 'change_patrol');
    await this.deps.patrols.findPatrol(this.deps.store.repos, tenantId, patrolId);
  }

  /** Stores an uploaded file (already staged) and its metadata, in one transaction. */
  async create(ctx: RequestContext, patrolId: string, upload: { staged: StagedFile | null; filename: string; fields: Record<string, string[]> }): Promise<PatrolFile> {
    const { tenantId } = requirePermission(ctx, 'change_patrol');
    if (!upload.staged) throw InputError.field('filecontent.file', 'required', 'No file was uploaded.', ['Send the file in the multipart field filecontent.file.']);
    const staged = upload.staged;
    const metadata = readMetadata(single(upload.fields), false);
    // Checked, then the bytes go into the store before the transaction: an upload (to a bucket,
    // say) must not hold a transaction open, nor SQLite's single writer. Checked again inside;
    // bytes stored by a create that loses a race are queued for removal when the upload's lease
    // ends (server/storage/leased-store.ts).
    await this.checkNew(this.deps.store.repos, tenantId, patrolId, metadata.id);
    const stored = await staged.commit();
    return this.deps.store.transaction(async (repos) => {
      const patrol = await this.checkNew(repos, tenantId, patrolId, metadata.id);
      const now = this.deps.clock.now();
      const file: PatrolFile = {
        id: metadata.id ?? randomUUID(), tenantId, patrolId: patrol.id, sha256: stored.sha256, storagePath: stored.path,
        filename: cleanFilename(upload.filename), contentType: stored.contentType, size: stored.size,
        comment: metadata.comment ?? '', ordernum: metadata.ordernum ?? null, createdByUserId: actingUser(ctx.principal!)?.id ?? null,
        createdAt: now, updatedAt: now,
      };
      await repos.patrols.insertFile(file);
      return file;
    });
  }

  /**
   * Attaches a finished resumable upload (server/storage/tus/) as the file `body.id` of the
   * patrol, in one transaction, as `create` stores a multipart upload: the upload must be
   * `stored` and the caller's (tenant and principal), and becomes `attached`. The same attach
   * repeated (same file id and upload) answers the same file; the upload attached elsewhere,
   * or another file with this id, is 409. Needs change_patrol.
   */
  async attachUpload(ctx: RequestContext, patrolId: string, body: AttachUploadBody): Promise<PatrolFile & { sha256: string }> {
    const principal = requirePermission(ctx, 'change_patrol');
    const input = readAttachBody(body);
    return this.deps.store.transaction(async (repos) => {
      const patrol = await this.deps.patrols.findPatrol(repos, principal.tenantId, patrolId);
      const now = this.deps.clock.now();
      const existing = (await repos.patrols.filesOf(principal.tenantId, [patrol.id])).find((candidate) => candidate.id === input.id);
      const taken = await takeUpload(repos, principal, input.upload, { kind: 'patrol', record: patrol.id, file: input.id }, now);
      if (taken.repeat) {
        if (!existing) throw new NotFoundError('The file this upload was attached as has been deleted since.');
        return existing;
      }
      if (existing) throw new ConflictError('A file with this id already exists.');
      const upload = taken.upload;
      const file: PatrolFile = {
        id: input.id, tenantId: principal.tenantId, patrolId: patrol.id, sha256: upload.sha256!, storagePath: upload.storagePath!,
        filename: cleanFilename(upload.filename), contentType: upload.contentType!, size: upload.size!, comment: input.comment ?? '', ordernum: null,
        createdByUserId: actingUser(principal)?.id ?? null, createdAt: now, updatedAt: now,
      };
      await repos.patrols.insertFile(file);
      return file;
    });
  }

  /** The patrol a new file may be added to; a client-supplied id that exists already is 409 (offline retries). */
  private async checkNew(repos: Repositories, tenantId: string, patrolId: string, id: string | undefined): Promise<Patrol> {
    const patrol = await this.deps.patrols.findPatrol(repos, tenantId, patrolId);
    if (id && (await repos.patrols.filesOf(tenantId, [patrol.id])).some((file) => file.id === id)) throw new ConflictError('A file with this id already exists.');
    return patrol;
  }

  /** Read and written in one transaction, so two concurrent edits cannot interleave. */
  async updateMetadata(ctx: RequestContext, patrolId: string, fileId: string, body: unknown): Promise<PatrolFile> {
    const { tenantId } = requirePermission(ctx, 'change_patrol');
    const metadata = readMetadata(body, true);
    return this.deps.store.transaction(async (repos) => {
      const patrol = await this.deps.patrols.findPatrol(repos, tenantId, patrolId);
      const current = isUuid(fileId) ? (await repos.patrols.filesOf(tenantId, [patrol.id])).find((file) => file.id === fileId.toLowerCase()) : undefined;
      if (!current) throw new NotFoundError('No such file.');
      const next = { ...current, ...Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== undefined)), updatedAt: this.deps.clock.now() };
      await repos.patrols.updateFile(next);
      return next;
    });
  }
}

function single(fields: Record<string, string[]>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([name, values]) => [name, values[values.length - 1]]));
}

/** `comment` and `ordernum`: JSON values on PATCH/PUT, form strings on upload. */
function readMetadata(body: unknown, json: boolean): { comment?: string; ordernum?: number | null; id?: string } {
  const reader = BodyReader.of(body ?? {});
  reader.rejectUnknown(json ? ['comment', 'ordernum'] : ['comment', 'ordernum', 'id'], json ? ['id', 'patrol', 'usercontent_id', 'usercontent_type', 'filename', 'file_type', 'size', 'url', 'created_at', 'updated_at'] : ['filecontent.file', 'usercontent_type']);
  const comment = reader.string('comment', { max: 2000 });
  let ordernum: number | null | undefined;
  if (reader.has('ordernum')) {
    const raw = reader.body.ordernum;
    const value = raw === null || raw === '' ? null : Number(raw);
    if (value !== null && (!Number.isInteger(value) || Math.abs(value) > 1e9)) reader.add('ordernum', { code: 'invalid', message: 'ordernum must be an integer.', hints: ['For example 1.'] });
    else ordernum = value;
  }
  let id: string | undefined;
  if (!json && reader.has('id')) {
    const raw = reader.body.id;
    if (typeof raw === 'string' && isUuid(raw)) id = raw.toLowerCase();
    else reader.add('id', { code: 'invalid', message: 'Expected a UUID.', hints: ['Leave id out for a new one.'] });
  }
  reader.finish('The file metadata is not valid.');
  return { comment, ordernum, ...(id ? { id } : {}) };
}
