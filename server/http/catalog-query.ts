import { CHOICE_SHAPES, type ChoiceShape } from '../../schema/index.js';
import type { CatalogDetailQuery, CatalogListQuery } from '../domain/catalog/queries.js';
import { InputError } from '../domain/errors.js';
import { requireIsoWithOffset } from '../domain/time-input.js';
import { callerProfile } from './presentation/caller-profile.js';
import { queryBoolean, queryString } from './query.js';
import type { AppContext } from './state.js';

export function readListQuery(ctx: AppContext): CatalogListQuery {
  const updatedSince = queryString(ctx, 'updated_since');
  return {
    includeInactive: queryBoolean(ctx, 'include_inactive'),
    includeSchema: queryBoolean(ctx, 'include_schema'),
    updatedSince: updatedSince === undefined || updatedSince === '' ? null : requireIsoWithOffset(updatedSince, 'updated_since'),
    withUsage: asksForUsage(ctx),
  };
}

/**
 * The earthranger profile's items say whether records use them (the original's
 * `has_events_assigned` on v2 event types), the fieldops profile's do not: the request side of
 * the profile step, as queryBoolean's reading of an unknown boolean. The revalidation fast path
 * reads the query with the caller's principal and the server's default profile too, so it asks
 * exactly when the route would (fast-revalidation.ts).
 */
function asksForUsage(ctx: AppContext): boolean {
  return callerProfile(ctx) === 'earthranger';
}

export function readDetailQuery(ctx: AppContext): CatalogDetailQuery {
  return { includeInactive: queryBoolean(ctx, 'include_inactive'), includeSchema: queryBoolean(ctx, 'include_schema'), withUsage: asksForUsage(ctx) };
}

/** `pre_render` and `s_format` (absent = the `anyOf` shape; `oneOf` and `enum`; anything else 400). */
export function readRenderQuery(ctx: AppContext): { preRender: boolean; shape: ChoiceShape } {
  const format = queryString(ctx, 's_format');
  if (format !== undefined && format !== '' && !CHOICE_SHAPES.includes(format as ChoiceShape)) {
    throw InputError.field('s_format', 'invalid_choice', `"${format}" is not a choice shape.`, ['Use s_format=oneOf or s_format=enum, or leave it out for anyOf.']);
  }
  return { preRender: queryBoolean(ctx, 'pre_render'), shape: (format || 'anyOf') as ChoiceShape };
}
