import type { EventCategoryService } from '../../domain/event-types/categories.js';
import { type EventTypeMigrationService, MigrationRefused } from '../../domain/event-types/migration.js';
import type { EventTypeV1Service } from '../../domain/event-types/v1.js';
import { errorBody } from '../error-body.js';
import { presentEventCategory, presentEventCategoryV1, presentEventTypeV1 } from '../presenters.js';
import { queryBoolean, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/** Event categories, v1 event types (text) and the v1 → v2 migration endpoint. */
export function eventTypeSupportHandlers(deps: { categories: EventCategoryService; v1: EventTypeV1Service; migration: EventTypeMigrationService; trustProxy: boolean }) {
  const key = (ctx: AppContext) => String(ctx.params.key);
  return {
    async listCategories(ctx: AppContext) {
      ctx.body = (await deps.categories.list(requestContext(ctx), queryBoolean(ctx, 'include_inactive'))).map(presentEventCategory);
    },
    async getCategory(ctx: AppContext) {
      ctx.body = presentEventCategory(await deps.categories.get(requestContext(ctx), key(ctx)));
    },
    async createCategory(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentEventCategory(await deps.categories.create(requestContext(ctx), ctx.state.body));
    },
    async updateCategory(ctx: AppContext) {
      ctx.body = presentEventCategory(await deps.categories.update(requestContext(ctx), key(ctx), ctx.state.body));
    },

    /** The v1 paths (er-client): the same categories, shown as the v1 list shows them. */
    async createCategoryV1(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentEventCategoryV1(await deps.categories.create(requestContext(ctx), ctx.state.body));
    },
    async updateCategoryV1(ctx: AppContext) {
      ctx.body = presentEventCategoryV1(await deps.categories.update(requestContext(ctx), key(ctx), ctx.state.body));
    },

    async getV1(ctx: AppContext) {
      ctx.body = presentEventTypeV1(await deps.v1.get(requestContext(ctx), key(ctx)));
    },
    async createV1(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentEventTypeV1(await deps.v1.create(requestContext(ctx), ctx.state.body));
    },
    async replaceV1(ctx: AppContext) {
      ctx.body = presentEventTypeV1(await deps.v1.update(requestContext(ctx), key(ctx), ctx.state.body, 'replace'));
    },
    async patchV1(ctx: AppContext) {
      ctx.body = presentEventTypeV1(await deps.v1.update(requestContext(ctx), key(ctx), ctx.state.body, 'patch'));
    },
    /** The rendered v1 document (tags replaced from choices), as v1 clients read it. */
    async renderV1(ctx: AppContext) {
      ctx.body = await deps.v1.render(requestContext(ctx), key(ctx));
    },

    /** 200 with per-type results; a real run that cannot convert everything is 400 and changes nothing. */
    async migrate(ctx: AppContext) {
      try {
        const outcome = await deps.migration.migrate(requestContext(ctx), ctx.state.body, requestOrigin(ctx, deps.trustProxy));
        ctx.body = { applied: outcome.applied, results: outcome.results };
      } catch (error) {
        if (!(error instanceof MigrationRefused)) throw error;
        ctx.status = 400;
        ctx.body = { ...errorBody(400, error.message), applied: false, results: error.results };
      }
    },
  };
}
