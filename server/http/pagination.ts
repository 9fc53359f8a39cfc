import { InputError, NotFoundError } from '../domain/errors.js';
import { requestOrigin } from './query.js';
import type { AppContext } from './state.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 4000;

export interface Page {
  page: number;
  pageSize: number;
  offset: number;
  limit: number;
}

/** `page` (1-based) and `page_size` (default 25, at most 4000), CONTRACT §1. */
export function readPage(ctx: AppContext): Page {
  const page = positiveInteger(ctx, 'page', 1, Number.MAX_SAFE_INTEGER);
  const pageSize = positiveInteger(ctx, 'page_size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page, pageSize, offset: (page - 1) * pageSize, limit: pageSize };
}

/** `{count, next, previous, results}` with absolute links; a page past the end is 404. */
export function pageBody<T>(ctx: AppContext, page: Page, total: number, results: T[], trustProxy: boolean) {
  if (page.page > 1 && page.offset >= total) throw new NotFoundError('Invalid page.');
  const link = (number: number) => {
    const url = new URL(ctx.originalUrl, requestOrigin(ctx, trustProxy));
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

function positiveInteger(ctx: AppContext, name: string, fallback: number, max: number): number {
  const raw = ctx.query[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(Array.isArray(raw) ? raw[raw.length - 1] : raw);
  if (!Number.isInteger(value) || value < 1) throw InputError.field(name, 'invalid', `${name} must be a positive integer.`, [`For example ${name}=1.`]);
  return Math.min(value, max);
}
