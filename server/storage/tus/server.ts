import { randomUUID } from 'node:crypto';
import { Server, type Upload } from '@tus/server';
import type { Logger } from 'pino';
import type { Clock } from '../../db/time.js';
import { type RequestContext, actingUser, requirePermission } from '../../domain/context.js';
import { ConflictError, NotFoundError, UnavailableError } from '../../domain/errors.js';
import type { Store } from '../../domain/ports.js';
import type { FileStore } from '../file-store.js';
import type { FileRemovals } from '../file-sweeper.js';
import type { TusDatastore } from './datastore.js';
import { finishUpload, removeReceived } from './finish.js';
import { crashPoint } from '../../testing/crash-points.js';
import { DatabaseLocker } from './locker.js';
import { FILE_SHA256_HEADER, type FileUpload, UPLOADS_PATH, uploadPrincipal } from './ports.js';

/** Who sends a tus request (set by the HTTP handler, read by the hooks). */
export interface UploadCaller {
  tenantId: string;
  principal: string;
  userId: string | null;
  deviceId: string | null;
  /** The creation's Idempotency-Key. */
  clientKey: string | null;
}

export interface TusUploadDeps {
  store: Store;
  clock: Clock;
  files: FileStore;
  removals: FileRemovals;
  tus: TusDatastore;
  logger: Logger;
  maxFileBytes: number;
  /** How long an upload may stay unfinished, then unattached (FIELDOPS_UPLOAD_EXPIRY_HOURS). */
  expiryMs: number;
}

/** An upload's id in its URL: 32 lowercase hex digits. */
const URL_ID = /^[0-9a-f]{32}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Resumable uploads (tus 1.0) on the configured store: tus's server does the protocol, this
 * class what fieldops adds around it. Every upload has a `file_uploads` row written before its
 * first byte (tenant, principal, claimed sha256: the onUploadCreate hook); its writers are kept
 * apart across processes by a lease on that row (locker.ts); the last byte finishes it into the
 * fieldops file store (finish.ts). Knows no Koa: the HTTP handler hands it web Requests.
 */
export class TusUploads {
  readonly server: Server;
  private readonly locker: DatabaseLocker;
  private readonly callers = new WeakMap<Request, UploadCaller>();
  /** The upload a request finished: its received copy is removed once tus has answered. */
  private readonly finishedBy = new WeakMap<Request, string>();

  constructor(private readonly deps: TusUploadDeps) {
    const { tus } = deps;
    this.locker = new DatabaseLocker({ uploads: deps.store.repos.uploads, clock: deps.clock, rowIdOf: tus.urlIdOf });
    this.server = new Server({
      path: UPLOADS_PATH,
      datastore: tus.datastore,
      relativeLocation: true,
      maxSize: deps.maxFileBytes,
      locker: this.locker,
      exposedHeaders: [FILE_SHA256_HEADER, 'Upload-Expires'],
      namingFunction: () => tus.tusIdOf(randomUUID().replace(/-/g, '')),
      getFileIdFromRequest: (_req, last) => (last && URL_ID.test(last) ? tus.tusIdOf(last) : undefined),
      generateUrl: (_req, { path, id }) => `${path}/${tus.urlIdOf(id)}`,
      onUploadCreate: (req, upload) => this.created(req, upload),
      onUploadFinish: async (req, upload) => {
        const row = await this.deps.store.repos.uploads.find(tus.urlIdOf(upload.id));
        if (!row) throw { status_code: 404, body: 'No such upload.' };
        // Kill tests: every byte received, nothing finished yet (a HEAD finishes it).
        crashPoint('upload.before-finish');
        const finished = await finishUpload(this.deps, row, { keepReceived: true });
        this.finishedBy.set(req, upload.id);
        return { headers: { [FILE_SHA256_HEADER]: finished.sha256 ?? '' } };
      },
    });
  }

  get maxFileBytes(): number {
    return this.deps.maxFileBytes;
  }

  get expiryMs(): number {
    return this.deps.expiryMs;
  }

  /** The caller of an upload request: who may upload files to events or patrols (403 otherwise). */
  caller(ctx: RequestContext, extra: { deviceId: string | null; clientKey: string | null }): UploadCaller {
    const principal = requirePermission(ctx, 'add_event', 'change_event', 'add_patrol', 'change_patrol');
    return { tenantId: principal.tenantId, principal: uploadPrincipal(principal), userId: actingUser(principal)?.id ?? null, ...extra };
  }

  /** Runs tus on `request` as `caller` (null: OPTIONS, which needs none). */
  async handle(request: Request, caller: UploadCaller | null): Promise<Response> {
    if (caller) this.callers.set(request, caller);
    const response = await this.server.handleWeb(request);
    const finished = this.finishedBy.get(request);
    if (finished) await removeReceived(this.deps, finished);
    return response;
  }

  /** The caller's upload with this URL id, or null (another tenant's or principal's, or none). */
  async owned(caller: UploadCaller, urlId: string): Promise<FileUpload | null> {
    if (!URL_ID.test(urlId)) return null;
    return this.deps.store.repos.uploads.findOwned(caller.tenantId, caller.principal, urlId);
  }

  /** The caller's upload created with this Idempotency-Key, or null. */
  byClientKey(caller: UploadCaller, clientKey: string): Promise<FileUpload | null> {
    return this.deps.store.repos.uploads.findByClientKey(caller.tenantId, caller.principal, clientKey);
  }

  /**
   * The bytes received so far (all of them once stored). Read under the upload's lock, as tus's
   * HEAD does: a request still writing (one whose client was cut) is asked to let go and is
   * waited for, so no offset is answered while bytes are still on their way into the store.
   */
  async offsetOf(upload: FileUpload): Promise<number> {
    if (upload.state !== 'receiving') return upload.length;
    const tusId = this.deps.tus.tusIdOf(upload.id);
    const lock = this.locker.newLock(tusId);
    try {
      await lock.lock(new AbortController().signal, () => undefined);
    } catch (error) {
      if ((error as { status_code?: unknown } | null)?.status_code === 404) throw new NotFoundError('No such upload.');
      throw new UnavailableError('The upload is being written by another request; retry shortly.');
    }
    try {
      return (await this.deps.tus.datastore.getUpload(tusId)).offset;
    } finally {
      await lock.unlock();
    }
  }

  /** When an unfinished upload expires (the row's expiry, sent as Upload-Expires). */
  expiresAt(upload: FileUpload): string {
    return new Date(upload.expiresAt).toUTCString();
  }

  /** Finishes an upload all of whose bytes arrived (idempotent; a 460 answer is thrown on a checksum mismatch). */
  finish(upload: FileUpload): Promise<FileUpload> {
    return finishUpload(this.deps, upload);
  }

  /**
   * Termination of an upload the tus store no longer holds (stored or failed): the row goes,
   * and stored bytes are released to the file sweeper. An attached upload is the file's now:
   * nothing changes.
   */
  async terminate(upload: FileUpload): Promise<void> {
    if (upload.state === 'attached') return;
    await this.deps.store.transaction((repos) => repos.uploads.delete(upload.id));
    await removeReceived(this.deps, this.deps.tus.tusIdOf(upload.id));
    if (upload.state === 'stored' && upload.sha256) await this.deps.removals.released([upload.sha256]);
  }

  /** onUploadCreate: the metadata is checked and the row written before tus stores anything. */
  private async created(req: Request, upload: Upload): Promise<{ metadata?: Upload['metadata'] }> {
    const caller = this.callers.get(req);
    if (!caller) throw { status_code: 401, body: 'Authentication credentials were not provided.' };
    const { filename, sha256 } = readMetadata(upload.metadata);
    if (upload.size === undefined) throw { status_code: 400, body: 'Upload-Length is required.' };
    const now = this.deps.clock.now();
    try {
      await this.deps.store.transaction((repos) =>
        repos.uploads.insert({
          id: this.deps.tus.urlIdOf(upload.id), tenantId: caller.tenantId, principal: caller.principal, userId: caller.userId, deviceId: caller.deviceId,
          clientKey: caller.clientKey, length: upload.size!, sha256Claimed: sha256, filename, state: 'receiving', sha256: null, size: null,
          storagePath: null, contentType: null, attachedKind: null, attachedRecord: null, attachedFile: null,
          createdAt: now, updatedAt: now, expiresAt: now + this.deps.expiryMs, storedAt: null,
        }),
      );
    } catch (error) {
      // A concurrent creation with the same Idempotency-Key won: the caller asks again.
      if (error instanceof ConflictError) throw { status_code: 409, body: 'An upload with this Idempotency-Key is being created; repeat the request.' };
      throw error;
    }
    return {};
  }
}

/** The metadata an upload must carry: `filename` (1–255 characters) and `sha256` (64 hex digits). */
export function readMetadata(metadata: Upload['metadata']): { filename: string; sha256: string } {
  const filename = metadata?.filename?.trim() ?? '';
  const sha256 = metadata?.sha256?.trim().toLowerCase() ?? '';
  if (!filename || filename.length > 255) throw { status_code: 400, body: 'Upload-Metadata must carry filename (1 to 255 characters).' };
  if (!SHA256.test(sha256)) throw { status_code: 400, body: 'Upload-Metadata must carry sha256: the file\'s SHA-256 as 64 hex digits.' };
  return { filename, sha256 };
}
