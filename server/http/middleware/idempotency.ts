/**
 * The `Idempotency-Key` route step (issue 26; docs/sync.md "Idempotent writes").
 *
 * A keyed request runs its handler inside a write scope (domain/write-scope.ts): the first
 * write transaction stores principal + key → request hash and record, in that transaction
 * (domain/idempotency/claim-hook.ts); after the handler, one UPDATE stores the answer. Before
 * the handler, a stored key answers instead of running it:
 *
 * - same hash, answered: the stored status, body and headers, with `Idempotent-Replayed: true`;
 * - same hash, committed but unanswered (the server stopped, or the UPDATE failed, between the
 *   commit and the answer): the record's current representation from the route's GET, with
 *   the route's success status (204 for a delete);
 * - another hash: 422 `idempotency_key_reused`.
 *
 * The hash covers the route, its path parameters, the body, the preconditions and the query
 * parameters the route declares as choosing its target (`idempotent.query`).
 *
 * A request that fails after its twin (the same key, at the same time) committed is answered
 * the twin's answer: a transport retry is never shown a 409 or a 412 caused by itself. Errors
 * are not stored, so a retry of a refused request is evaluated again.
 *
 * Every record write runs in a write scope, keyed or not: the scope names the device
 * (`Fieldops-Client-Id`, when sane) that history and conflict rows record. Only a keyed one claims.
 */
import { DomainError, InputError } from '../../domain/errors.js';
import type { StoredKey } from '../../domain/idempotency/ports.js';
import { requestHash } from '../../domain/idempotency/request-hash.js';
import { type IdempotencyService, principalKey } from '../../domain/idempotency/service.js';
import { type WriteScope, writeScopes } from '../../domain/write-scope.js';
import type { IdempotentRoute, Route } from '../routes/types.js';
import { errorBody } from '../error-body.js';
import { queryString } from '../query.js';
import { MAX_BODY_DEPTH, deeperThan } from '../json-depth.js';
import type { AppContext, Middleware } from '../state.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** The headers a replay repeats (the body's own validator and where a created record is). */
const REPLAYED_HEADERS = ['etag', 'location'];

/** The key was used before for another request (another body, path or route). */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'idempotency_key_reused';
  readonly status = 422;
}

/** Thrown through the handler to answer from the store instead of running it. */
class Replay extends Error {
  constructor(
    readonly stored: StoredKey,
    readonly hashed: unknown,
  ) {
    super('idempotent replay');
  }
}

interface KeyedRequest {
  key: string;
  scope: WriteScope;
  route: Route & { idempotent: IdempotentRoute };
  /** What was hashed (the JSON body, or an upload's fields and file digest). */
  hashed: unknown;
  service: IdempotencyService;
}

const keyedRequests = new WeakMap<AppContext, KeyedRequest>();

/**
 * 1–255 visible ASCII characters; the IETF draft's quoted sf-string ("...") is accepted too.
 * Anything else (empty, too long, control or non-ASCII characters) is refused: 400.
 */
export function parseIdempotencyKey(raw: string): string | null {
  const quoted = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(raw);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : raw;
  return /^[\x21-\x7e]{1,255}$/.test(key) || (quoted && /^[\x20-\x7e]{1,255}$/.test(key) && key.trim() !== '') ? key : null;
}

export { principalKey };

/** `Fieldops-Client-Id` as the scope's device: the header when it is sane (as request-id.ts logs it), else null. */
const SANE_CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;
export function deviceIdOf(ctx: AppContext): string | null {
  const raw = ctx.get('Fieldops-Client-Id');
  return SANE_CLIENT_ID.test(raw) ? raw : null;
}

/**
 * Computes the request's hash and answers from the store when the key is known. Called by the
 * step itself for JSON and body-less routes, and by the handler of a route that reads its own
 * body (uploads: after staging, with the file's sha256) before it writes anything.
 */
export async function beginIdempotent(ctx: AppContext, hashed: unknown): Promise<void> {
  const keyed = keyedRequests.get(ctx);
  if (!keyed || keyed.scope.claim) return;
  const { route, scope, key } = keyed;
  if (deeperThan(hashed, MAX_BODY_DEPTH)) throw InputError.field('body', 'too_deep', `The body nests deeper than ${MAX_BODY_DEPTH} levels.`, ['Send a flatter body.']);
  const params: Record<string, string> = { ...(ctx.params as Record<string, string>) };
  keyed.hashed = hashed;
  // The preconditions are part of the request: the same key with another base is another request (422).
  const base = ctx.get('Fieldops-Base-Revision');
  const ifMatch = ctx.get('If-Match');
  const hashedRequest = base || ifMatch ? { body: hashed ?? null, base: base || null, if_match: ifMatch || null } : hashed;
  const query = hashedQuery(ctx, route.idempotent.query ?? []);
  scope.claim = { key, requestHash: requestHash(route.name, params, hashedRequest, query), op: route.name, recordKind: route.idempotent.recordKind };
  const stored = await keyed.service.find(scope, key);
  if (!stored) return;
  if (stored.requestHash !== scope.claim.requestHash) throw reused();
  throw new Replay(stored, hashed);
}

/** The route's target-choosing query parameters as its handler reads them (the last of repeats; empty is absent). */
function hashedQuery(ctx: AppContext, names: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of names) {
    const value = queryString(ctx, name);
    if (value) query[name] = value;
  }
  return query;
}

function reused(): IdempotencyKeyReusedError {
  return new IdempotencyKeyReusedError('This Idempotency-Key was used for another request.');
}

/** The route step: after authentication, the body and its validation; before the handler. */
export function idempotencyStep(route: Route & { idempotent: IdempotentRoute }, deps: { service: IdempotencyService; readBack: ((ctx: AppContext) => Promise<void> | void) | null }): Middleware {
  return async (ctx, next) => {
    const raw = ctx.req.headers['idempotency-key'];
    const principal = ctx.state.principal;
    if (!principal) return next();
    const deviceId = deviceIdOf(ctx);
    if (raw === undefined) {
      const unkeyed: WriteScope = { tenantId: principal.tenantId, principalKey: principalKey(principal), claim: null, record: null, pending: false, claimed: false, deviceId };
      return writeScopes.run(unkeyed, next);
    }
    const key = typeof raw === 'string' ? parseIdempotencyKey(raw) : null;
    if (key === null) {
      ctx.status = 400;
      ctx.body = errorBody(400, 'Invalid Idempotency-Key header.', {
        idempotency_key: [{ code: 'invalid', message: 'Expected 1 to 255 visible ASCII characters.', hints: ['Send one key per request, such as a UUID.'] }],
      });
      return;
    }
    const scope: WriteScope = { tenantId: principal.tenantId, principalKey: principalKey(principal), claim: null, record: null, pending: false, claimed: false, deviceId };
    const keyed: KeyedRequest = { key, scope, route, hashed: undefined, service: deps.service };
    keyedRequests.set(ctx, keyed);
    try {
      await writeScopes.run(scope, async () => {
        if (!route.idempotent.bodyInHandler) await beginIdempotent(ctx, ctx.state.body);
        await next();
      });
    } catch (error) {
      if (error instanceof Replay) return replay(ctx, keyed, error.stored, deps);
      if (error instanceof IdempotencyKeyReusedError) {
        ctx.status = 422;
        ctx.body = errorBody(422, error.message, { idempotency_key: [{ code: error.code, message: error.message, hints: ['Send a new key with each new request.'] }] });
        return;
      }
      // Failed, maybe because a twin with the same key committed first: answer as the twin.
      if (scope.claim && !scope.claimed) {
        const stored = await deps.service.find(scope, key).catch(() => null);
        if (stored && stored.requestHash === scope.claim.requestHash) return replay(ctx, keyed, stored, deps);
      }
      throw error;
    }
    if (!scope.claimed || ctx.status >= 400) return;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = ctx.response.get(name);
      if (value) headers[name] = value;
    }
    const body = ctx.body === null || ctx.body === undefined || ctx.status === 204 ? undefined : ctx.body;
    if (body !== undefined && !isJsonValue(body)) return;
    // The write is committed whatever happens here: a failure only costs a re-render on replay.
    await deps.service.storeAnswer(scope, key, { status: ctx.status, body, headers }).catch((error: unknown) => ctx.state.log.warn({ err: error }, 'idempotency answer not stored'));
  };
}

async function replay(ctx: AppContext, keyed: KeyedRequest, first: StoredKey, deps: { service: IdempotencyService; readBack: ((ctx: AppContext) => Promise<void> | void) | null }): Promise<void> {
  const stored = await deps.service.settled(keyed.scope, keyed.key, first);
  ctx.set('Idempotent-Replayed', 'true');
  if (stored.answer) {
    ctx.status = stored.answer.status;
    for (const [name, value] of Object.entries(stored.answer.headers)) ctx.set(name, value);
    if (stored.answer.body !== undefined) ctx.body = stored.answer.body;
    return;
  }
  const spec = keyed.route.idempotent;
  const created = spec.created;
  // A create without a GET to render it from (routes/keyed-unrenderable.ts) takes the 202 below.
  if (!deps.readBack && !created) {
    ctx.status = spec.status;
    return;
  }
  if (created && Array.isArray(keyed.hashed)) {
    // An array create (events): one record cannot stand for the answer. The writes are done.
    ctx.status = 202;
    ctx.body = errorBody(202, 'The request was carried out; its answer was lost. Read the records back to see them.');
    return;
  }
  if (created) {
    // NOTE: a create whose id is always the server's never trusts a body `id`: a copied record's
    // id there names another record, and the replay must show the one this request made.
    const fromBody = created.bodyId === false ? null : createdId(keyed.hashed);
    const id = !deps.readBack ? null : (fromBody ?? (created.marked ? storedRecord(stored, spec) : null));
    if (!id) {
      // NOTE: a create whose id the server chose, and whose answer was lost with the server: the
      // write is done (2xx), but which record it made is not known here.
      ctx.status = 202;
      ctx.body = errorBody(202, 'The request was carried out; its answer was lost. Read the record back to see it.');
      return;
    }
    ctx.params = { ...(ctx.params as Record<string, string>), [created.param]: id };
  } else if (spec.rereadByRecord) {
    // The path may name the record by what the write changed: re-read the record itself. A key
    // stored without its record (before records were noted) falls back to the path.
    const id = storedRecord(stored, spec);
    if (id) ctx.params = { ...(ctx.params as Record<string, string>), [spec.rereadByRecord]: id };
  }
  await deps.readBack!(ctx);
  ctx.status = spec.status;
}

/** The id of the record stored with the key, when it is of the route's kind. */
function storedRecord(stored: StoredKey, spec: IdempotentRoute): string | null {
  return stored.recordKind === spec.recordKind ? stored.recordId : null;
}

/** The client's id of the record a create makes: `id` of a JSON body or of an upload's fields. */
function createdId(hashed: unknown): string | null {
  if (typeof hashed !== 'object' || hashed === null) return null;
  const body = hashed as { id?: unknown; fields?: { id?: unknown } };
  if (typeof body.id === 'string') return body.id;
  const field = body.fields?.id;
  return Array.isArray(field) && typeof field[0] === 'string' ? field[0] : null;
}

function isJsonValue(value: unknown): boolean {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return true;
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  return proto === Object.prototype || proto === null;
}
