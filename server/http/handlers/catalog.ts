import type { ChoiceService } from '../../domain/choices/service.js';
import type { CatalogService } from '../../domain/catalog/service.js';
import { type Precondition, readBeforeKey } from '../../domain/catalog/service.js';
import { batchEntry, readStoredSchema } from '../../domain/catalog/schema-read.js';
import { toFieldIssue } from '../../domain/catalog/schema-write.js';
import type { CatalogItem } from '../../domain/model.js';
import { readDetailQuery, readListQuery, readRenderQuery } from '../catalog-query.js';
import { answerConditionally, ifMatchSatisfied } from '../conditional.js';
import { BodyCache } from '../body-cache.js';
import { errorBody } from '../error-body.js';
import { pageBody, readPage } from '../pagination.js';
import { presentRevision, withSchema } from '../presenters.js';
import { queryBoolean, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * The HTTP face of a schema-carrying catalog (patrol types; v2 event types): list and detail
 * with conditional GET decided before anything is loaded, writes, rank, schema reads and
 * history. The presenter shapes one item; `schema` is added only where asked for.
 */
export function catalogHandlers<T extends CatalogItem>(
  service: CatalogService<T>,
  present: (item: T, origin: string) => Record<string, unknown>,
  deps: { choices: ChoiceService; trustProxy: boolean },
) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  // List bodies by ETag: a revalidation that misses (the client's copy is stale) is served
  // without loading or serialising the catalog again while it has not changed.
  const bodies = new BodyCache();
  /** `If-Match` (strong comparison, RFC 9110 §13.1.1), when the client sent one. */
  const precondition = (ctx: AppContext): Precondition | undefined => {
    const header = ctx.get('If-Match');
    return header ? { matches: (etag) => ifMatchSatisfied(header, etag), variant: origin(ctx) } : undefined;
  };
  const renderOptions = (ctx: AppContext) => ({ ...readRenderQuery(ctx), resolver: deps.choices.resolverFor(requestContext(ctx)) });
  return {
    async list(ctx: AppContext) {
      const query = readListQuery(ctx);
      // The origin is part of the body (image_url), so it is part of the validator.
      const validators = await service.listValidators(requestContext(ctx), query, origin(ctx));
      if (answerConditionally(ctx, validators)) return;
      const cached = bodies.get(validators.etag);
      if (cached) {
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = cached;
        return;
      }
      const items = await service.list(requestContext(ctx), query);
      const { inUse } = validators;
      const body = items.map((item) => withUsage(withSchema(present(item, origin(ctx)), item, query.includeSchema), inUse && inUse.has(item.value)));
      bodies.set(validators.etag, Buffer.from(JSON.stringify(body)));
      ctx.body = body;
    },

    async detail(ctx: AppContext) {
      const query = readDetailQuery(ctx);
      const { item, validators, inUse } = await service.detail(requestContext(ctx), key(ctx), query, origin(ctx));
      if (answerConditionally(ctx, validators)) return;
      ctx.body = withUsage(withSchema(present(item, origin(ctx)), item, query.includeSchema), inUse);
    },

    async create(ctx: AppContext) {
      const item = await service.create(requestContext(ctx), ctx.state.body);
      ctx.status = 201;
      // Where the new item is (the original answers a v2 event type POST with it): the list path plus its value.
      ctx.set('Location', `${origin(ctx)}${ctx.path.replace(/\/+$/, '')}/${encodeURIComponent(item.value)}`);
      ctx.body = present(item, origin(ctx));
    },

    async replace(ctx: AppContext) {
      ctx.body = present(await service.update(requestContext(ctx), key(ctx), ctx.state.body, 'replace', precondition(ctx)), origin(ctx));
    },

    async patch(ctx: AppContext) {
      ctx.body = present(await service.update(requestContext(ctx), key(ctx), ctx.state.body, 'patch', precondition(ctx)), origin(ctx));
    },

    async remove(ctx: AppContext) {
      await service.remove(requestContext(ctx), key(ctx), precondition(ctx));
      ctx.status = 204;
    },

    async rank(ctx: AppContext) {
      await service.rank(requestContext(ctx), key(ctx), readBeforeKey(ctx.state.body));
      ctx.status = 204;
    },

    /** `{count, results}`: 200 when every entry succeeded, else 207. No validators (rule 8). */
    async schemas(ctx: AppContext) {
      const query = readListQuery(ctx);
      const options = renderOptions(ctx);
      const items = await service.list(requestContext(ctx), query);
      const results = [];
      for (const item of items) results.push(await batchEntry(item.value, item.schema, options));
      ctx.status = results.every((result) => result.status === 'success') ? 200 : 207;
      ctx.body = { count: results.length, results };
    },

    /** The bare `{json, ui}` document; 422 with `{errors}` when the stored one is empty or malformed. */
    async schema(ctx: AppContext) {
      const options = renderOptions(ctx);
      const item = await service.get(requestContext(ctx), key(ctx), queryBoolean(ctx, 'include_inactive'));
      const read = await readStoredSchema(item.schema, options);
      if (!read.ok) {
        ctx.status = 422;
        ctx.body = { ...errorBody(422, 'The stored schema cannot be served.'), errors: read.issues.map(toFieldIssue) };
        return;
      }
      ctx.body = read.document;
    },

    async updates(ctx: AppContext) {
      const page = readPage(ctx);
      const { total, entries } = await service.history(requestContext(ctx), key(ctx), queryBoolean(ctx, 'include_inactive'), page);
      ctx.body = pageBody(ctx, page, total, entries.map(presentRevision), deps.trustProxy);
    },
  };
}

const key = (ctx: AppContext) => String(ctx.params.key);

/** `has_events_assigned` when the read asked for the usage (undefined: it did not). */
function withUsage<T extends object>(body: T, inUse: boolean | undefined): T {
  return inUse === undefined ? body : { ...body, has_events_assigned: inUse };
}
