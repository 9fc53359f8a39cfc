import { AuthenticationError, DomainError, InputError, OAuthError } from '../../domain/errors.js';
import { translateDbError } from '../../db/errors.js';
import { errorBody } from '../error-body.js';
import type { Middleware } from '../state.js';

/**
 * Maps every failure to a status and the contract's error body (RFC 6749 bodies for OAuth).
 * Messages are exposed only below 500; a 5xx says nothing internal.
 */
export const errorMapping: Middleware = async (ctx, next) => {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = errorBody(404, 'No such resource.');
    } else if (ctx.status === 405 && typeof ctx.body !== 'object') {
      ctx.body = errorBody(405, `Method "${ctx.method}" not allowed.`);
    }
  } catch (caught) {
    const error = translateDbError(caught);
    if (error instanceof OAuthError) {
      ctx.status = error.status;
      ctx.set('Cache-Control', 'no-store');
      if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
      if (error.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="oauth2"');
      ctx.body = { error: error.error, error_description: error.description };
      return;
    }
    if (error instanceof DomainError) {
      ctx.status = error.status;
      if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
      if (error instanceof AuthenticationError) {
        ctx.set('WWW-Authenticate', error.bearerError ? `Bearer realm="api", error="${error.bearerError}"` : 'Bearer realm="api"');
      }
      ctx.body = errorBody(error.status, error.message, error instanceof InputError ? error.fields : {});
      return;
    }
    const status = httpErrorStatus(error);
    if (status !== null && status < 500) {
      ctx.status = status;
      ctx.body = errorBody(status, (error as Error).message);
      return;
    }
    ctx.state.log.error({ err: error }, 'unhandled error');
    ctx.status = 500;
    ctx.body = errorBody(500, 'An internal error occurred; it has been logged with this request id.');
  }
};

/** Errors thrown by Koa and its helpers carry `status` and `expose`. */
function httpErrorStatus(error: unknown): number | null {
  const candidate = error as { status?: unknown; expose?: unknown };
  return typeof candidate?.status === 'number' && candidate.expose === true ? candidate.status : null;
}
