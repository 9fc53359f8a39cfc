import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Middleware } from '../state.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** `Fieldops-Client-Id` (the CLI's mirror, one per laptop and profile): logged when sane, else ignored. */
const SANE_CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every request an id (a sane inbound X-Request-Id is honoured, anything else replaced),
 * echoes it, and logs one line per request with its outcome and duration. The request's child
 * logger is made on first use: building one (with redaction) costs more than most requests.
 */
export function requestIdAndLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const inbound = ctx.get('X-Request-Id');
    const requestId = SANE_REQUEST_ID.test(inbound) ? inbound : randomUUID();
    let child: Logger | null = null;
    ctx.state.requestId = requestId;
    Object.defineProperty(ctx.state, 'log', { get: () => (child ??= logger.child({ requestId })), configurable: true, enumerable: true });
    ctx.state.principal = null;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      if (logger.isLevelEnabled('info')) {
        const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
        const clientId = ctx.get('Fieldops-Client-Id');
        logger.info(
          {
            requestId, method: ctx.method, path: ctx.path, route: ctx.state.routeName, status: ctx.status, durationMs: Math.round(durationMs * 10) / 10,
            ...(SANE_CLIENT_ID.test(clientId) ? { clientId } : {}),
          },
          'request',
        );
      }
    }
  };
}
