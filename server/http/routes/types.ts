import type { BodyKind } from '../middleware/body.js';
import type { AppContext } from '../state.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One entry of the route table. Every path also answers with a trailing slash. */
export interface Route {
  name: string;
  method: Method;
  paths: readonly string[];
  /** Resolve the caller's credentials before the handler (401 on invalid ones). */
  authenticate: boolean;
  /** Body kinds parsed into ctx.state.body before the handler. */
  body?: readonly BodyKind[];
  handler: (ctx: AppContext) => Promise<void> | void;
}

export const json = ['json'] as const;

/** Paths that the Python client calls under /api/v1.0 as well as at the root (CONTRACT §8). */
export const rootAndV1 = (path: string) => [path, `/api/v1.0${path}`];
