import { InputError, NotFoundError } from '../domain/errors.js';
import { requestUrl } from './query.js';
import type { AppContext } from './state.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 4000;
/**
 * No list holds 10^9 rows: a page starting beyond is past the end whatever the data (404, as
 * any page past the end), and the offset stays far inside every integer type of both databases.
 */
export const MAX_OFFSET = 1_000_000_000;

export interface Page {
  page: number;
  pageSize: number;
  offset: number;
  limit: number;
}

/**
 * `page` (1-based) and `page_size` (default 25, larger values count as 4000), CONTRACT §1.
 * Decimal digits only; a page starting past MAX_OFFSET is 404 before any query runs.
 */
export function readPage(ctx: AppContext): Page {
  const page = positiveInteger(ctx, 'page', 1);
  const pageSize = Math.min(positiveInteger(ctx, 'page_size', DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  const offset = (page - 1) * pageSize;
  if (offset > MAX_OFFSET) throw new NotFoundError('Invalid page.');
  return { page, pageSize, offset, limit: pageSize };
}

/** `{count, next, previous, results}` with absolute links; a page past the end is 404. */
export function pageBody<T>(ctx: AppContext, page: Page, total: number, results: T[], trustProxy: boolean) {
  if (page.page > 1 && page.offset >= total) throw new NotFoundError('Invalid page.');
  const link = (number: number) => {
    const url = requestUrl(ctx, trustProxy);
    url.searchParams.set('page', String(number));
    return url.toString();
  };
  return {
    count: total,
    next: page.offset + page.pageSize < total ? link(page.page + 1) : null,
    previous: page.page > 1 ? link(page.page - 1) : null,
    results,
  };
}

/** A positive decimal integer; more than 15 digits is read as MAX_SAFE_INTEGER (past any end). */
function positiveInteger(ctx: AppContext, name: string, fallback: number): number {
  const raw = ctx.query[name];
  if (raw === undefined || raw === '') return fallback;
  const text = (Array.isArray(raw) ? raw[raw.length - 1] : raw) ?? '';
  const value = /^[0-9]{1,15}$/.test(text) ? Number(text) : /^[0-9]+$/.test(text) ? Number.MAX_SAFE_INTEGER : NaN;
  if (!(value >= 1)) throw InputError.field(name, 'invalid', `${name} must be a positive integer.`, [`For example ${name}=1.`]);
  return value;
}
