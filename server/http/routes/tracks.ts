import type { Services } from '../../app.js';
import type { Route } from './types.js';

/** Issue 27 (step 0 placeholder): filled in by its area. */
export function trackRoutes(_services: Services): Route[] {
  return [];
}
