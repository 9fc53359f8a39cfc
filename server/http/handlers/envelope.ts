/**
 * The subject side's handler shape (subjects, sources, providers, assignments): call one service
 * method with the request context, answer its result in the users API's envelope `{data,
 * status}` (every profile, CONTRACT §10), or 204 for a delete. Route handlers are one line each.
 */
import type { RequestContext } from '../../domain/context.js';
import { requestContext, type AppContext } from '../state.js';

export function envelope(ctx: AppContext, status: number, data: unknown): void {
  ctx.status = status;
  ctx.body = { data, status: { code: status, message: status === 201 ? 'Created' : 'OK' } };
}

/** A handler answering `status` with `present(result)` enveloped. */
export function enveloped<R>(status: number, call: (rc: RequestContext, ctx: AppContext) => Promise<R>, present: (result: R, ctx: AppContext) => unknown) {
  return async (ctx: AppContext): Promise<void> => envelope(ctx, status, present(await call(requestContext(ctx), ctx), ctx));
}

/** A handler answering 204 once the call is done (deletes; the earthranger profile turns it into 200). */
export function noContent(call: (rc: RequestContext, ctx: AppContext) => Promise<unknown>) {
  return async (ctx: AppContext): Promise<void> => {
    await call(requestContext(ctx), ctx);
    ctx.status = 204;
  };
}

/** The path's `:id` (a record id, or for sources a manufacturer id too). */
export const pathId = (ctx: AppContext): string => String(ctx.params.id);
