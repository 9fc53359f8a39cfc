import type { BodyKind } from '../middleware/body.js';
import type { RouteSchema } from '../schemas/types.js';
import type { AppContext } from '../state.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type { RouteSchema } from '../schemas/types.js';

/** One entry of the route table. Every path also answers with a trailing slash. */
export interface Route {
  name: string;
  method: Method;
  paths: readonly string[];
  /** Resolve the caller's credentials before the handler (401 on invalid ones). */
  authenticate: boolean;
  /** Body kinds parsed into ctx.state.body before the handler. */
  body?: readonly BodyKind[];
  /**
   * What the route accepts and answers, as JSON Schemas (server/http/schemas/). The same
   * schemas validate the query and JSON body before the handler (middleware/validate.ts),
   * describe the route in /api/openapi.json, and check responses in tests.
   */
  schema: RouteSchema;
  handler: (ctx: AppContext) => Promise<void> | void;
}

export const json = ['json'] as const;

/** Paths that the Python client calls under /api/v1.0 as well as at the root (CONTRACT §8). */
export const rootAndV1 = (path: string) => [path, `/api/v1.0${path}`];
