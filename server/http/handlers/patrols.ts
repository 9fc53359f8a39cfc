import { readPatrolFilter } from '../../domain/patrols/filters.js';
import type { PatrolNoteService } from '../../domain/patrols/notes.js';
import type { PatrolView } from '../../domain/patrols/model.js';
import type { PatrolService } from '../../domain/patrols/service.js';
import { pageBody, readPage } from '../pagination.js';
import { presentNote, presentPatrol, presentSegment } from '../presenters-patrols.js';
import { queryBoolean, queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';
import { baseRevision, writePrecondition } from './events.js';

/**
 * Patrols, segments and notes. No validators anywhere: no `ETag`, no `Last-Modified`, never a 304
 * (specification rule 8). Optimistic concurrency names the `revision` in every body instead
 * (`Fieldops-Base-Revision` on PATCH/PUT of a patrol or a segment, issue 26 §2). `If-Match` on a
 * patrol PATCH/PUT, queued by older CLIs that read the patrol ETag of issue 16, is still checked
 * against the internal version (domain/patrols/etag.ts), which is no longer served.
 */
export function patrolHandlers(deps: { patrols: PatrolService; notes: PatrolNoteService; trustProxy: boolean }) {
  const { patrols, notes } = deps;
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  const param = (ctx: AppContext, name: string) => String(ctx.params[name]);
  const one = (ctx: AppContext, view: PatrolView) => {
    ctx.body = presentPatrol(view, origin(ctx));
  };
  return {
    async list(ctx: AppContext) {
      const page = readPage(ctx);
      const raw = ctx.query.status;
      const statuses = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      const filter = readPatrolFilter(queryString(ctx, 'filter'), statuses, queryBoolean(ctx, 'exclude_empty_patrols'), queryString(ctx, 'updated_since'));
      const { total, views } = await patrols.list(requestContext(ctx), filter, page);
      ctx.body = pageBody(ctx, page, total, views.map((view) => presentPatrol(view, origin(ctx))), deps.trustProxy);
    },
    async get(ctx: AppContext) {
      one(ctx, await patrols.get(requestContext(ctx), param(ctx, 'id')));
    },
    async create(ctx: AppContext) {
      ctx.status = 201;
      one(ctx, await patrols.create(requestContext(ctx), ctx.state.body));
    },
    async update(ctx: AppContext) {
      const pre = writePrecondition(ctx);
      one(ctx, await patrols.update(requestContext(ctx), param(ctx, 'id'), ctx.state.body, pre));
    },
    /** er-client `delete_patrol`: 204 (the earthranger profile: 200 `data: null`). */
    async remove(ctx: AppContext) {
      await patrols.delete(requestContext(ctx), param(ctx, 'id'), writePrecondition(ctx));
      ctx.status = 204;
    },

    async listSegments(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, views } = await patrols.listSegments(requestContext(ctx), page);
      ctx.body = pageBody(ctx, page, total, views.map((view) => presentSegment(view, origin(ctx))), deps.trustProxy);
    },
    async getSegment(ctx: AppContext) {
      ctx.body = presentSegment(await patrols.getSegment(requestContext(ctx), param(ctx, 'id')), origin(ctx));
    },
    async createSegment(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentSegment(await patrols.createSegment(requestContext(ctx), ctx.state.body), origin(ctx));
    },
    async updateSegment(ctx: AppContext) {
      // A segment never had a validator: only its base revision.
      const base = baseRevision(ctx);
      ctx.body = presentSegment(await patrols.updateSegment(requestContext(ctx), param(ctx, 'id'), ctx.state.body, base ? { base } : {}), origin(ctx));
    },

    async listNotes(ctx: AppContext) {
      ctx.body = (await notes.list(requestContext(ctx), param(ctx, 'id'))).map(presentNote);
    },
    async getNote(ctx: AppContext) {
      ctx.body = presentNote(await notes.get(requestContext(ctx), param(ctx, 'id'), param(ctx, 'noteId')));
    },
    async createNote(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentNote(await notes.create(requestContext(ctx), param(ctx, 'id'), ctx.state.body));
    },
    async replaceNote(ctx: AppContext) {
      ctx.body = presentNote(await notes.update(requestContext(ctx), param(ctx, 'id'), param(ctx, 'noteId'), ctx.state.body, 'replace'));
    },
    async patchNote(ctx: AppContext) {
      ctx.body = presentNote(await notes.update(requestContext(ctx), param(ctx, 'id'), param(ctx, 'noteId'), ctx.state.body, 'patch'));
    },
  };
}
