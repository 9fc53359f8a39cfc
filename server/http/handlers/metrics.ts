import { createHash, timingSafeEqual } from 'node:crypto';
import { requirePermission } from '../../domain/context.js';
import type { OAuthService } from '../../domain/oauth/service.js';
import type { Metrics } from '../../metrics/metrics.js';
import { authenticate } from '../middleware/authenticate.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * `/metrics` (Prometheus text). Allowed with `Authorization: Bearer <FIELDOPS_METRICS_TOKEN>`
 * (a scraper's static token, checked without the database, so metrics stay readable while it
 * is down), or for any principal with `view_metrics` (superusers have it); else 401/403.
 */
export function metricsHandler(deps: { metrics: Metrics; oauth: OAuthService; token: string | null }) {
  const resolve = authenticate(deps.oauth);
  const expected = deps.token ? digest(deps.token) : null;
  return async (ctx: AppContext) => {
    const [scheme = '', credentials = ''] = ctx.get('Authorization').trim().split(/\s+/);
    const scraper = expected !== null && scheme.toLowerCase() === 'bearer' && timingSafeEqual(digest(credentials), expected);
    if (!scraper) {
      await resolve(ctx, async () => undefined);
      requirePermission(requestContext(ctx), 'view_metrics');
    }
    const { contentType, body } = await deps.metrics.exposition();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();
