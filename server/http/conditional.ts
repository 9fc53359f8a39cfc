import { withoutCoding } from './content-coding.js';
import type { AppContext } from './state.js';

/**
 * Precondition evaluation for GET/HEAD (RFC 9110 §13.2.2), written here because Koa's
 * `ctx.fresh` lets If-Modified-Since decide even when If-None-Match is present.
 *
 * - If-None-Match present: it alone decides (weak comparison; `*` matches any current
 *   representation; a list matches when any member does).
 * - Otherwise If-Modified-Since, when parsable and a Last-Modified is known: not modified when
 *   the resource's Last-Modified (one-second resolution) is not later than the date sent.
 * - An unparsable If-Modified-Since is ignored.
 */
export function isNotModified(ctx: AppContext, validators: { etag: string; lastModified?: number }): boolean {
  const ifNoneMatch = ctx.get('If-None-Match');
  if (ifNoneMatch) return etagListMatches(ifNoneMatch, validators.etag);
  const ifModifiedSince = ctx.get('If-Modified-Since');
  if (!ifModifiedSince || validators.lastModified === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  return Math.floor(validators.lastModified / 1000) * 1000 <= since;
}

/**
 * Weak comparison: `W/"x"` and `"x"` match, and so do the tags of its compressed
 * representations (`"x-gzip"`, `"x-br"`; content-coding.ts).
 */
export function etagListMatches(header: string, etag: string): boolean {
  if (header === etag) return true; // the revalidation hot path: the tag sent back as received
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  const wanted = opaque(withoutCoding(etag));
  for (const candidate of trimmed.match(/(?:W\/)?"[^"]*"/g) ?? []) {
    if (opaque(withoutCoding(candidate)) === wanted) return true;
  }
  return false;
}

/**
 * Strong comparison for If-Match (optimistic concurrency): weak tags never match. A coded tag
 * (`"x-gzip"`) names the same version as `"x"`: the client read it compressed.
 */
export function ifMatchSatisfied(header: string, etag: string): boolean {
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  const wanted = withoutCoding(etag);
  return (trimmed.match(/(?:W\/)?"[^"]*"/g) ?? []).some((candidate) => !candidate.startsWith('W/') && withoutCoding(candidate) === wanted);
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

let lastDate = { second: Number.NaN, text: '' };

/** An IMF-fixdate at one-second resolution (the last one is remembered: it rarely changes). */
export function httpDate(millis: number): string {
  const second = Math.floor(millis / 1000);
  if (second !== lastDate.second) lastDate = { second, text: new Date(second * 1000).toUTCString() };
  return lastDate.text;
}

/**
 * Sets the validators and answers 304 when the request's preconditions say the client's copy
 * is current. Call it before loading anything expensive: when it returns true, the response
 * is complete (no body, the ETag repeated).
 */
export function answerConditionally(ctx: AppContext, validators: { etag: string; lastModified?: number }): boolean {
  ctx.set('ETag', validators.etag);
  if (validators.lastModified !== undefined) ctx.set('Last-Modified', httpDate(validators.lastModified));
  ctx.set('Cache-Control', 'private, no-cache');
  if (!isNotModified(ctx, validators)) return false;
  ctx.status = 304;
  ctx.body = null;
  return true;
}
