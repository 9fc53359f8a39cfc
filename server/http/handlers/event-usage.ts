import { createHash } from 'node:crypto';
import type { EventUsageService } from '../../domain/events/usage.js';
import { answerConditionally } from '../conditional.js';
import { queryBoolean, queryString } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * The answer with a strong ETag (a hash of its JSON: summaries have no cheaper version to name),
 * or 304 when If-None-Match still matches it (the summary is read either way).
 */
function answer(ctx: AppContext, body: { data: unknown }): void {
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
  if (answerConditionally(ctx, { etag })) return;
  ctx.body = body;
}

/** Issue 28: usage summaries of a type's stored events (`{data: UsageSummary}`), one or a batch. */
export function eventUsageHandlers(deps: { usage: EventUsageService }) {
  return {
    async one(ctx: AppContext) {
      const key = String((ctx.params as Record<string, string>).key ?? '');
      answer(ctx, { data: await deps.usage.ofType(requestContext(ctx), key, queryBoolean(ctx, 'include_inactive')) });
    },
    async many(ctx: AppContext) {
      const types = (queryString(ctx, 'types') ?? '').split(',');
      answer(ctx, { data: await deps.usage.ofValues(requestContext(ctx), types.length === 1 && types[0] === '' ? [] : types) });
    },
  };
}
