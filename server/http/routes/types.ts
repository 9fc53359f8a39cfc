import type { BodyKind } from '../middleware/body.js';
import type { RouteSchema } from '../schemas/types.js';
import type { AppContext, Middleware } from '../state.js';
import type { KeyedRecordKind } from '../../domain/idempotency/ports.js';

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
  /** A record write that honours `Idempotency-Key` (middleware/idempotency.ts). */
  idempotent?: IdempotentRoute;
  /** This route's JSON body limit, instead of FIELDOPS_JSON_LIMIT (the batched push's). */
  bodyBytes?: number;
  /** A step after authentication and before the body is read (admission: 429 before reading megabytes). */
  admit?: Middleware;
}

/** How a route honours `Idempotency-Key`, and how it answers a committed write whose answer was lost. */
export interface IdempotentRoute {
  /** The kind of record the write marks (events and their parts: `event`; patrols, segments and their parts: `patrol`), or an unmarked kind (domain/idempotency/ports.ts). */
  recordKind: KeyedRecordKind;
  /** The GET route (by name) that renders the record now, or null (a delete: nothing to render). */
  readBack: string | null;
  /** The route's success status, which a re-rendered answer carries. */
  status: number;
  /**
   * A create: the GET route's parameter that names the new record, from the body's `id` (unless
   * `bodyId` is false: the server always chooses the id, and a body's `id` names another record)
   * or (`marked`) the record stored with the key.
   */
  created?: { param: string; marked: boolean; bodyId?: boolean };
  /**
   * An update whose path may name the record by something the write changes (a source by its
   * manufacturer id): a lost answer is re-read with this GET parameter set to the id of the
   * record stored with the key, instead of the path's.
   */
  rereadByRecord?: string;
  /**
   * Query parameters that choose what the write does (its target): part of the request's hash,
   * so that the same key with another target is 422. Absent or empty ones are left out (the
   * handler reads them so), and a request without any hashes as it did before they counted.
   */
  query?: readonly string[];
  /** The handler reads the body itself and calls `beginIdempotent` before writing (uploads). */
  bodyInHandler?: boolean;
}

/** `idempotent` entries of the route table. */
export const keyed = {
  create: (recordKind: KeyedRecordKind, readBack: string, param: string, marked = false, bodyInHandler = false): IdempotentRoute => ({ recordKind, readBack, status: 201, created: { param, marked }, bodyInHandler }),
  update: (recordKind: KeyedRecordKind, readBack: string, bodyInHandler = false): IdempotentRoute => ({ recordKind, readBack, status: 200, bodyInHandler }),
  remove: (recordKind: KeyedRecordKind): IdempotentRoute => ({ recordKind, readBack: null, status: 204 }),
  /** A create whose id the server always chooses (a body's `id` is ignored): re-read by the record stored with the key. */
  createWithServerId: (recordKind: KeyedRecordKind, readBack: string, param: string): IdempotentRoute => ({ recordKind, readBack, status: 201, created: { param, marked: true, bodyId: false } }),
};

export const json = ['json'] as const;

/** Paths that the Python client calls under /api/v1.0 as well as at the root (CONTRACT §8). */
export const rootAndV1 = (path: string) => [path, `/api/v1.0${path}`];
