import type { Metrics } from '../../metrics/metrics.js';
import type { Middleware } from '../state.js';

/**
 * Records every request's duration by route name and final status (errors included: it runs
 * outside the error mapping), and the outcome of conditional GETs (a GET carrying
 * If-None-Match or If-Modified-Since that ended 304 or 200).
 */
export function requestMetrics(metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = ctx.state.routeName ?? 'unmatched';
      metrics.observeRequest(route, ctx.method, ctx.status, Number(process.hrtime.bigint() - started) / 1e9);
      const conditional = ctx.get('If-None-Match') !== '' || ctx.get('If-Modified-Since') !== '';
      if ((ctx.method === 'GET' || ctx.method === 'HEAD') && conditional && (ctx.status === 304 || ctx.status === 200)) metrics.conditionalGet(route, ctx.status);
    }
  };
}
