import type { Context, Next, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { Principal, RequestContext } from '../domain/context.js';

/** What our middleware keeps on `ctx.state`. */
export interface AppState {
  requestId: string;
  log: Logger;
  principal: Principal | null;
  /** Parsed request body (JSON value or form fields), set by the body middleware. */
  body?: unknown;
  /** The route table entry that matched, for logs and metrics. */
  routeName?: string;
}

export type AppContext = ParameterizedContext<AppState> & Context;
export type Middleware = (ctx: AppContext, next: Next) => Promise<void> | void;

/** The explicit context handed to services: no Koa beyond this line. */
export function requestContext(ctx: AppContext): RequestContext {
  return { requestId: ctx.state.requestId, log: ctx.state.log, principal: ctx.state.principal };
}
