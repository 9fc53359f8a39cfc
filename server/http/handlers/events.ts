import type { EventService, EventView } from '../../domain/events/service.js';
import { NotFoundError } from '../../domain/errors.js';
import type { FileStore } from '../../storage/file-store.js';
import { toIso } from '../../db/time.js';
import { pageBody, readPage } from '../pagination.js';
import { requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';
import { contentDisposition } from './patrol-files.js';

export function presentEvent(view: EventView, origin: string) {
  const { event } = view;
  return {
    id: event.id,
    event_type: event.eventType,
    title: event.title,
    time: toIso(event.time),
    location: event.latitude === null ? null : { latitude: event.latitude, longitude: event.longitude },
    priority: event.priority,
    state: event.state,
    event_details: event.eventDetails,
    patrol_segments: view.segmentIds,
    files: view.files.map((file) => ({
      id: file.id,
      filename: file.filename,
      file_type: file.contentType,
      size: file.size,
      url: `${origin}/api/v1.0/activity/events/${event.id}/files/${file.id}/content`,
      created_at: toIso(file.createdAt),
    })),
    created_at: toIso(event.createdAt),
    updated_at: toIso(event.updatedAt),
  };
}

/** `/api/v1.0/activity/events` and `/patrols/segments/<id>/events` (CONTRACT §5b). */
export function eventHandlers(deps: { events: EventService; files: FileStore; trustProxy: boolean }) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  const id = (ctx: AppContext) => String(ctx.params.id);
  return {
    async list(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, views } = await deps.events.list(requestContext(ctx), page);
      ctx.body = pageBody(ctx, page, total, views.map((view) => presentEvent(view, origin(ctx))), deps.trustProxy);
    },
    async get(ctx: AppContext) {
      ctx.body = presentEvent(await deps.events.get(requestContext(ctx), id(ctx)), origin(ctx));
    },
    async create(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentEvent(await deps.events.create(requestContext(ctx), ctx.state.body), origin(ctx));
    },
    async update(ctx: AppContext) {
      ctx.body = presentEvent(await deps.events.update(requestContext(ctx), id(ctx), ctx.state.body), origin(ctx));
    },
    async segmentEvents(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, views } = await deps.events.list(requestContext(ctx), page, id(ctx));
      ctx.body = pageBody(ctx, page, total, views.map((view) => presentEvent(view, origin(ctx))), deps.trustProxy);
    },
    async createSegmentEvent(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentEvent(await deps.events.create(requestContext(ctx), ctx.state.body, id(ctx)), origin(ctx));
    },
    async fileContent(ctx: AppContext) {
      const view = await deps.events.get(requestContext(ctx), id(ctx));
      const file = view.files.find((candidate) => candidate.id === String(ctx.params.fileId));
      if (!file) throw new NotFoundError('No such file.');
      ctx.set('Content-Type', file.contentType);
      ctx.set('Content-Length', String(file.size));
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Disposition', contentDisposition(file.filename));
      ctx.body = deps.files.openRead(file.path);
    },
  };
}
