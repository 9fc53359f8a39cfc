import type { PatrolFileService } from '../../domain/patrols/files.js';
import type { FileStore } from '../../storage/file-store.js';
import type { UploadSlots } from '../upload-slots.js';
import { sendStoredFile } from '../file-download.js';
import { withUpload } from '../middleware/upload.js';
import { readBody, type BodyLimits } from '../middleware/body.js';
import { beginIdempotent } from '../middleware/idempotency.js';
import { presentPatrolFile } from '../presenters-patrols.js';
import { requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/** Patrol files: multipart upload (`filecontent.file`, `comment`, `ordernum`), metadata, and the bytes. */
export function patrolFileHandlers(deps: { service: PatrolFileService; files: FileStore; uploadSlots: UploadSlots; bodyLimits: BodyLimits; trustProxy: boolean }) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  const patrolId = (ctx: AppContext) => String(ctx.params.id);
  const fileId = (ctx: AppContext) => String(ctx.params.fileId);
  return {
    async list(ctx: AppContext) {
      ctx.body = (await deps.service.list(requestContext(ctx), patrolId(ctx))).map((file) => presentPatrolFile(file, origin(ctx)));
    },
    async get(ctx: AppContext) {
      ctx.body = presentPatrolFile(await deps.service.get(requestContext(ctx), patrolId(ctx), fileId(ctx)), origin(ctx));
    },
    async upload(ctx: AppContext) {
      const options = {
        fileField: 'filecontent.file', maxFileBytes: deps.service.maxFileBytes, maxFieldBytes: 8192, slots: deps.uploadSlots,
        authorize: () => deps.service.authorizeUpload(requestContext(ctx), patrolId(ctx)),
      };
      const file = await withUpload(ctx, deps.files, options, (upload) =>
        deps.service.create(requestContext(ctx), patrolId(ctx), { staged: upload.file?.staged ?? null, filename: upload.file?.filename ?? '', fields: upload.fields }),
      );
      ctx.status = 201;
      ctx.body = presentPatrolFile(file, origin(ctx));
    },
    async update(ctx: AppContext) {
      const body = await readBody(ctx, ['json'], deps.bodyLimits);
      await beginIdempotent(ctx, body);
      ctx.body = presentPatrolFile(await deps.service.updateMetadata(requestContext(ctx), patrolId(ctx), fileId(ctx), body), origin(ctx));
    },
    /** The bytes, with the sniffed type (see sendStoredFile: Range, presigned redirects). */
    async content(ctx: AppContext) {
      const file = await deps.service.get(requestContext(ctx), patrolId(ctx), fileId(ctx));
      await sendStoredFile(ctx, deps.files, { path: file.storagePath, size: file.size, contentType: file.contentType, disposition: contentDisposition(file.filename) });
    },
  };
}

/** RFC 6266: an ASCII fallback name and the exact UTF-8 name. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
