import { STATUS_CODES } from 'node:http';
import type { ApiProfile } from '../../domain/model.js';
import type { AppContext, Middleware } from '../state.js';
import { profileOf } from './profile.js';
import { earthRangerRule } from './rules.js';
import { fieldErrorsAsOriginal } from './error-shapes.js';
import { noteDefaultProfile } from './caller-profile.js';

/**
 * The one presentation step (CONTRACT §11): after the handler and the error mapping, maps the
 * response to the caller's profile. `fieldops` is what the handlers wrote; `earthranger` wraps
 * JSON bodies in `{data, status: {code, message}}` following the route's rule (rules.ts).
 * Error bodies carry `status: {code, message, detail}` and their field keys in both profiles;
 * a 400's field errors are lists of strings in the earthranger profile (fieldErrorsAsOriginal).
 *
 * NOTE: a client's profile is fixed per client, so a validator (ETag) never names two
 * representations for one caller; the ETag is therefore the same in both profiles, except where
 * the earthranger content holds more than a reshaping (v2 event types' `has_events_assigned`,
 * read by the route for that profile: catalog-query.ts), whose tag covers it.
 */
export function presentProfile(defaultProfile: ApiProfile): Middleware {
  return async (ctx, next) => {
    noteDefaultProfile(ctx, defaultProfile);
    await next();
    if (profileOf(ctx.state.principal ?? null, defaultProfile) !== 'earthranger') return;
    const rule = earthRangerRule(ctx.state.routeName);
    if (ctx.status === 400 && rule.kind !== 'raw') return reshapeFieldErrors(ctx);
    if (rule.kind === 'enveloped' && rule.data) return reshapeEnveloped(ctx, rule.data);
    if (rule.kind === 'raw' && rule.data) return reshapeRaw(ctx, rule.data);
    if (rule.kind !== 'wrap' || ctx.state.routeName === undefined) return;
    const status = ctx.status;
    if (status >= 300 && status !== 204) return;
    if (status === 204) {
      ctx.status = 200;
      ctx.body = envelope(rule.data ? rule.data(null, ctx, status) : null, 200);
      return;
    }
    const body = ctx.body;
    if (Buffer.isBuffer(body)) {
      if (!/json/.test(ctx.type)) return;
      if (rule.data) {
        ctx.body = envelope(rule.data(JSON.parse(body.toString('utf8')), ctx, status), status);
        return;
      }
      // A cached serialised JSON body (catalog lists): wrapped without parsing it again.
      const tail = `,"status":${JSON.stringify({ code: status, message: STATUS_CODES[status] ?? 'OK' })}}`;
      ctx.body = Buffer.concat([Buffer.from('{"data":'), body, Buffer.from(tail)]);
      ctx.type = 'application/json; charset=utf-8';
      return;
    }
    if (body === null || body === undefined || typeof body !== 'object' || typeof (body as { pipe?: unknown }).pipe === 'function') return;
    ctx.body = envelope(rule.data ? rule.data(body, ctx, status) : body, status);
  };
}

/** An enveloped answer (`{data, status}`, a 2xx object body) with its payload reshaped. */
function reshapeEnveloped(ctx: AppContext, data: (payload: unknown) => unknown): void {
  const body = ctx.body as { data?: unknown } | null | undefined;
  if (ctx.status >= 300 || !body || typeof body !== 'object' || Buffer.isBuffer(body) || !('data' in body)) return;
  ctx.body = { ...body, data: data(body.data) };
}

/** A raw (unwrapped) 2xx JSON object body reshaped (no route with such a rule answers a Buffer or stream). */
function reshapeRaw(ctx: AppContext, data: (payload: unknown) => unknown): void {
  const body = ctx.body;
  if (ctx.status < 200 || ctx.status >= 300 || !body || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  ctx.body = data(body);
}

function envelope(data: unknown, status: number) {
  return { data, status: { code: status, message: STATUS_CODES[status] ?? 'OK' } };
}

/** A 400 error body (ours: issues per field) as the original answers it: messages per field. */
function reshapeFieldErrors(ctx: AppContext): void {
  const body = ctx.body;
  if (!body || typeof body !== 'object' || Buffer.isBuffer(body) || Array.isArray(body)) return;
  ctx.body = fieldErrorsAsOriginal(body as Record<string, unknown>);
}
