import type { ApiProfile } from '../../domain/model.js';
import type { AppContext } from '../state.js';
import { profileOf } from './profile.js';

/**
 * The caller's profile for the request side (query readers, the validation step), which run
 * inside the route, after authentication. The presentation step (middleware.ts) notes the
 * server's default on each request before it runs; without it (a handler driven alone) the
 * default is `fieldops`.
 */
const defaults = new WeakMap<object, ApiProfile>();

export function noteDefaultProfile(ctx: AppContext, profile: ApiProfile): void {
  defaults.set(ctx, profile);
}

export function callerProfile(ctx: AppContext): ApiProfile {
  return profileOf(ctx.state?.principal ?? null, defaults.get(ctx) ?? 'fieldops');
}
