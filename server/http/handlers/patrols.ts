import { patrolViewEtag } from '../../domain/patrols/etag.js';
import { readPatrolFilter } from '../../domain/patrols/filters.js';
import type { PatrolNoteService } from '../../domain/patrols/notes.js';
import type { PatrolView } from '../../domain/patrols/model.js';
import type { PatrolService } from '../../domain/patrols/service.js';
import { ifMatchSatisfied } from '../conditional.js';
import { pageBody, readPage } from '../pagination.js';
import { presentNote, presentPatrol, presentSegment } from '../presenters-patrols.js';
import { queryBoolean, queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * Patrols, segments and notes. No validators on lists, segments or notes (specification rule 8);
 * one patrol carries an ETag (issue 16, for `If-Match` on PATCH/PUT; see domain/patrols/etag.ts),
 * never a 304 (the tag does not cover notes and files).
 */
export function patrolHandlers(deps: { patrols: PatrolService; notes: PatrolNoteService; trustProxy: boolean }) {
  const { patrols, notes } = deps;
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  const param = (ctx: AppContext, name: string) => String(ctx.params[name]);
  const one = (ctx: AppContext, view: PatrolView) => {
    ctx.set('ETag', patrolViewEtag(view));
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
      // NOTE: no 304 here. The ETag is the patrol's version for If-Match (its fields and segments);
      // notes and files do not move it, so it cannot vouch for the representation (rule 8).
      one(ctx, await patrols.get(requestContext(ctx), param(ctx, 'id')));
    },
    async create(ctx: AppContext) {
      ctx.status = 201;
      one(ctx, await patrols.create(requestContext(ctx), ctx.state.body));
    },
    async update(ctx: AppContext) {
      const header = ctx.get('If-Match');
      const ifMatch = header ? (etag: string) => ifMatchSatisfied(header, etag) : undefined;
      one(ctx, await patrols.update(requestContext(ctx), param(ctx, 'id'), ctx.state.body, { ifMatch }));
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
      ctx.body = presentSegment(await patrols.updateSegment(requestContext(ctx), param(ctx, 'id'), ctx.state.body), origin(ctx));
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
