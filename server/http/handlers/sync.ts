import type { Change, FeedPage, FeedRequest, RangesRequest, RecordKind, RecordsRequest, ResumePoint } from '../../../protocol/sync.js';
import type { ApiProfile } from '../../domain/model.js';
import { InputError } from '../../domain/errors.js';
import type { FeedChange, SyncFeedService } from '../../domain/sync/feed.js';
import { SyncFeedError } from '../../domain/sync/feed-errors.js';
import type { SyncRepairService } from '../../domain/sync/feed-repair.js';
import { errorBody } from '../error-body.js';
import { withSerialisedJson } from '../serialised-json.js';
import { queryString, requestOrigin } from '../query.js';
import { requestContext, type AppContext } from '../state.js';
import { presentRecord } from './sync-presenters.js';

/** A page stops growing past this much JSON (at least one change is always sent). */
export const PAGE_BYTES = 1024 * 1024;

/** The body as an object (the route's schema has checked its fields; a non-object is 400 here). */
function body<T>(ctx: AppContext): T {
  const sent = ctx.state.body;
  if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) throw new InputError('The request body is a JSON object.');
  return sent as T;
}

/** The feed's 410/503: the contract's error body, the code as the issue of the field `sync`. */
async function answering(ctx: AppContext, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof SyncFeedError)) throw error;
    ctx.status = error.status;
    if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
    ctx.body = errorBody(error.status, error.message, { sync: [{ code: error.code, message: error.message, hints: error.hints }] });
  }
}

/**
 * `POST …/sync/changes`, `…/sync/ranges`, `…/sync/records`, `GET …/sync/explain` (docs/sync.md).
 * The service answers views; this presents each record as its REST read would, and cuts a page
 * at about PAGE_BYTES of JSON (the cut change's own cursor then resumes after it).
 */
export function syncHandlers(deps: { feed: SyncFeedService; repair: SyncRepairService; trustProxy: boolean; apiProfile: ApiProfile }) {
  const origin = (ctx: AppContext) => requestOrigin(ctx, deps.trustProxy);
  const wire = (ctx: AppContext, change: FeedChange, from = origin(ctx)): Change => {
    const shown = change.record ? presentRecord(ctx, change.record, from, deps.apiProfile) : null;
    return { kind: change.kind, id: change.id, op: change.op, version: change.version, etag: shown?.etag ?? null, revision: shown?.revision ?? null, scopes: change.scopes, record: shown?.record ?? null };
  };
  return {
    changes: (ctx: AppContext) =>
      answering(ctx, async () => {
        const result = await deps.feed.changes(requestContext(ctx), body<FeedRequest>(ctx));
        const changes: Change[] = [];
        // Each change is serialised once, to measure the page and then as part of the body.
        const texts: string[] = [];
        let bytes = 0;
        let cutAfter: string | null = null;
        const from = origin(ctx);
        for (const change of result.changes) {
          const shown = wire(ctx, change, from);
          const text = JSON.stringify(shown);
          bytes += Buffer.byteLength(text);
          changes.push(shown);
          texts.push(text);
          if (bytes >= PAGE_BYTES && change !== result.changes[result.changes.length - 1]) {
            cutAfter = change.after;
            break;
          }
        }
        const resume_points = resumePoints(result.changes, changes.length);
        const rest: Omit<FeedPage, 'changes'> = cutAfter === null
          ? { cursor: result.cursor, has_more: result.hasMore, settling: result.settling, checkpoint: result.checkpoint, granted: result.granted, denied: result.denied, resume_points }
          : { cursor: cutAfter, has_more: true, settling: false, checkpoint: null, granted: result.granted, denied: result.denied, resume_points };
        const page: FeedPage = { changes, ...rest };
        ctx.set('Cache-Control', 'no-store');
        // JSON.stringify(page), from the texts above: `changes` is the first property.
        ctx.body = withSerialisedJson(page, `{"changes":[${texts.join(',')}],${JSON.stringify(rest).slice(1)}`);
      }),
    ranges: (ctx: AppContext) =>
      answering(ctx, async () => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = await deps.repair.ranges(requestContext(ctx), body<RangesRequest>(ctx));
      }),
    records: (ctx: AppContext) =>
      answering(ctx, async () => {
        const changes = await deps.repair.records(requestContext(ctx), body<RecordsRequest>(ctx));
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { changes: changes.map((change) => wire(ctx, change)) };
      }),
    explain: (ctx: AppContext) =>
      answering(ctx, async () => {
        const kind = queryString(ctx, 'kind') as RecordKind | undefined;
        const out = await deps.repair.explain(requestContext(ctx), { scope: queryString(ctx, 'scope'), id: queryString(ctx, 'id'), kind });
        ctx.set('Cache-Control', 'no-store');
        ctx.body = out;
      }),
  };
}

/**
 * Where a client may commit part of a page of `sent` changes (docs/sync.md §8): every
 * floor(sent / 10) changes, each with the cursor that resumes right after that change, so no
 * segment holds more than a tenth of the page; none on a page of fewer than 10 (a kill then
 * costs at most 9 changes), nor at the last change (the page's own cursor is that point).
 */
export function resumePoints(changes: readonly FeedChange[], sent: number): ResumePoint[] {
  if (sent < 10) return [];
  const step = Math.floor(sent / 10);
  const points: ResumePoint[] = [];
  for (let index = step - 1; index < sent - 1; index += step) points.push({ index, cursor: changes[index]!.after });
  return points;
}
