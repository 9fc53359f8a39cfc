import type { EventFileRecord, EventNote } from '../../domain/events/model.js';
import type { EventService } from '../../domain/events/service.js';
import type { FileStore } from '../../storage/file-store.js';
import { sendStoredFile } from '../file-download.js';
import { withUpload } from '../middleware/upload.js';
import type { UploadSlots } from '../upload-slots.js';
import { presentEventFile, presentEventNote } from './events-presenters.js';
import { requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';
import { contentDisposition } from './patrol-files.js';

/** Notes and files of an event: `activity/event/<id>/notes`, `/note/<note_id>`, `/files/`, `/file/<file_id>`. */
export function eventPartHandlers(deps: { events: EventService; files: FileStore; uploadSlots: UploadSlots; maxFieldBytes: number; trustProxy: boolean }) {
  const { notes, files } = deps.events;
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  const eventId = (ctx: AppContext) => String(ctx.params.id);
  const noteId = (ctx: AppContext) => String(ctx.params.noteId);
  const fileId = (ctx: AppContext) => String(ctx.params.fileId);
  const authors = (ctx: AppContext, items: ReadonlyArray<{ createdByUserId: string | null }>) => deps.events.usersNamed(requestContext(ctx), items.map((item) => item.createdByUserId));
  const note = async (ctx: AppContext, value: EventNote) => presentEventNote(value, await authors(ctx, [value]));
  const file = async (ctx: AppContext, value: EventFileRecord) => presentEventFile(value, origin(ctx), await authors(ctx, [value]));
  return {
    async listNotes(ctx: AppContext) {
      const list = await notes.list(requestContext(ctx), eventId(ctx));
      const users = await authors(ctx, list);
      ctx.body = list.map((item) => presentEventNote(item, users));
    },
    async createNote(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = await note(ctx, await notes.create(requestContext(ctx), eventId(ctx), ctx.state.body));
    },
    async getNote(ctx: AppContext) {
      ctx.body = await note(ctx, await notes.get(requestContext(ctx), eventId(ctx), noteId(ctx)));
    },
    async updateNote(ctx: AppContext) {
      ctx.body = await note(ctx, await notes.update(requestContext(ctx), eventId(ctx), noteId(ctx), ctx.state.body));
    },
    async deleteNote(ctx: AppContext) {
      await notes.delete(requestContext(ctx), eventId(ctx), noteId(ctx));
      ctx.status = 204;
    },
    async listFiles(ctx: AppContext) {
      const list = await files.list(requestContext(ctx), eventId(ctx));
      const users = await authors(ctx, list);
      ctx.body = list.map((item) => presentEventFile(item, origin(ctx), users));
    },
    /** Multipart `filecontent.file` + `comment`; refused (403, 404) before the bytes are read. */
    async upload(ctx: AppContext) {
      const options = {
        fileField: 'filecontent.file', maxFileBytes: files.maxFileBytes, maxFieldBytes: deps.maxFieldBytes, slots: deps.uploadSlots,
        authorize: () => files.authorizeUpload(requestContext(ctx), eventId(ctx)),
      };
      const stored = await withUpload(ctx, deps.files, options, (upload) =>
        files.create(requestContext(ctx), eventId(ctx), { staged: upload.file?.staged ?? null, filename: upload.file?.filename ?? '', fields: upload.fields }),
      );
      ctx.status = 201;
      ctx.body = await file(ctx, stored);
    },
    async getFile(ctx: AppContext) {
      ctx.body = await file(ctx, await files.get(requestContext(ctx), eventId(ctx), fileId(ctx)));
    },
    async deleteFile(ctx: AppContext) {
      await files.delete(requestContext(ctx), eventId(ctx), fileId(ctx));
      ctx.status = 204;
    },
    /** The bytes, with the sniffed type (see sendStoredFile: Range, presigned redirects, always a download). */
    async content(ctx: AppContext) {
      const file = await files.get(requestContext(ctx), eventId(ctx), fileId(ctx));
      await sendStoredFile(ctx, deps.files, { path: file.path, size: file.size, contentType: file.contentType, disposition: contentDisposition(file.filename) });
    },
  };
}
