import { BASE_REVISION_HEADER } from '../../../protocol/push.js';
import type { IfMatch, WritePrecondition } from '../../domain/client-input.js';
import { InputError } from '../../domain/errors.js';
import { eventEtag, type EventService } from '../../domain/events/service.js';
import type { EventListQuery } from '../../domain/events/filters.js';
import type { RenderMode } from '../../domain/events/render.js';
import { answerConditionally, ifMatchSatisfied } from '../conditional.js';
import { pageBody, readPage } from '../pagination.js';
import { eventGeojson, presentEvent } from './events-presenters.js';
import { queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

export { presentEvent } from './events-presenters.js';

const list = (ctx: AppContext, name: string): string[] => {
  const raw = ctx.query[name];
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
};

/** The list's query parameters, as the domain reads them (the map, count and export read the same). */
export function listQuery(ctx: AppContext): EventListQuery {
  return {
    state: list(ctx, 'state'), eventType: list(ctx, 'event_type'), filter: queryString(ctx, 'filter'), updatedSince: queryString(ctx, 'updated_since'), sortBy: queryString(ctx, 'sort_by'),
    bbox: queryString(ctx, 'bbox'),
  };
}

/** `?render=` (issue 28 §4), already checked against its enum by the route's query schema. */
const renderMode = (ctx: AppContext): RenderMode | undefined => (queryString(ctx, 'render') === 'as_recorded' ? 'as_recorded' : undefined);

/** `If-Match` (strong comparison), when the client sent one. */
export function ifMatch(ctx: AppContext): IfMatch {
  const header = ctx.get('If-Match');
  return header ? (etag: string) => ifMatchSatisfied(header, etag) : undefined;
}

/** The name as documented and reported (the field of a 400). */
export const BASE_REVISION_FIELD = 'Fieldops-Base-Revision';

/**
 * `Fieldops-Base-Revision` (issue 26 §2): the record's revision an update or delete was based
 * on, which asks the service to merge. Digits only, 1 to 2^53-1; anything else (a sign, an
 * exponent, a fraction, spaces inside, a repeated header, too long) is a 400 with the field
 * `Fieldops-Base-Revision`, code `invalid`. Absent: undefined.
 */
export function baseRevision(ctx: AppContext): { revision: number } | undefined {
  const raw = ctx.req.headers[BASE_REVISION_HEADER];
  if (raw === undefined) return undefined;
  // NOTE: Node joins a repeated unknown header with ", ", so two values fail the pattern.
  const text = Array.isArray(raw) ? raw.join(', ') : raw;
  const revision = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(revision) || revision < 1) {
    throw InputError.field(BASE_REVISION_FIELD, 'invalid', 'Expected the revision the change was based on: a positive integer (digits only, at most 2^53-1).', [
      'Send the `revision` of the record as last read, or leave the header out.',
    ]);
  }
  return { revision };
}

/** What a PATCH/PUT/DELETE was based on: `If-Match` and `Fieldops-Base-Revision`, as sent. */
export function writePrecondition(ctx: AppContext): WritePrecondition {
  const base = baseRevision(ctx);
  return { ifMatch: ifMatch(ctx), ...(base ? { base } : {}) };
}

/**
 * `/api/v1.0/activity/events`, `activity/event/<id>` (and `activity/events/<id>`), and the
 * events of a patrol segment (CONTRACT §5b, §11). One event carries its ETag (its revision);
 * GET answers 304 to a current `If-None-Match` before loading the representation. PATCH and
 * DELETE take `If-Match` and `Fieldops-Base-Revision` (writePrecondition).
 */
export function eventHandlers(deps: { events: EventService; trustProxy: boolean }) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  const id = (ctx: AppContext) => String(ctx.params.id);
  const single = (ctx: AppContext, status: number, view: Awaited<ReturnType<EventService['get']>>) => {
    ctx.status = status;
    ctx.set('ETag', eventEtag(view.event));
    ctx.body = presentEvent(view, origin(ctx));
  };
  return {
    async list(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, views } = await deps.events.list(requestContext(ctx), page, undefined, listQuery(ctx), renderMode(ctx));
      ctx.body = pageBody(ctx, page, total, views.map((view) => presentEvent(view, origin(ctx))), deps.trustProxy);
    },
    /** A page of the filtered, located events as a FeatureCollection (`count`, `next`, `previous` beside `features`). */
    async geojson(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, events, facts } = await deps.events.map.features(requestContext(ctx), page, listQuery(ctx));
      const features = events.map((event) => eventGeojson(event, facts.get(event.eventType)!, origin(ctx)));
      const { results: _results, ...links } = pageBody(ctx, page, total, features, deps.trustProxy);
      ctx.body = { type: 'FeatureCollection', ...links, features };
    },
    async count(ctx: AppContext) {
      ctx.body = { count: await deps.events.map.count(requestContext(ctx), listQuery(ctx)) };
    },
    async get(ctx: AppContext) {
      const event = await deps.events.head(requestContext(ctx), id(ctx));
      const render = renderMode(ctx);
      // No Last-Modified: two changes within one second would make If-Modified-Since answer a stale 304.
      // A rendered body also shows choice names, which change without the event: never a 304 then.
      if (!render && answerConditionally(ctx, { etag: eventEtag(event) })) return;
      single(ctx, 200, await deps.events.view(requestContext(ctx), event, render));
    },
    async create(ctx: AppContext) {
      const view = await deps.events.create(requestContext(ctx), ctx.state.body);
      ctx.set('Location', `${origin(ctx)}/api/v1.0/activity/event/${view.event.id}`);
      single(ctx, 201, view);
    },
    async update(ctx: AppContext) {
      const pre = writePrecondition(ctx);
      single(ctx, 200, await deps.events.update(requestContext(ctx), id(ctx), ctx.state.body, pre));
    },
    async remove(ctx: AppContext) {
      const pre = writePrecondition(ctx);
      await deps.events.delete(requestContext(ctx), id(ctx), pre);
      ctx.status = 204;
    },
    async segmentEvents(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, views } = await deps.events.list(requestContext(ctx), page, id(ctx));
      ctx.body = pageBody(ctx, page, total, views.map((view) => presentEvent(view, origin(ctx))), deps.trustProxy);
    },
    async createSegmentEvent(ctx: AppContext) {
      single(ctx, 201, await deps.events.create(requestContext(ctx), ctx.state.body, id(ctx)));
    },
  };
}
