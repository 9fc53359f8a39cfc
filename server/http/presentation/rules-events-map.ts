import type { EarthRangerRule } from './rules.js';

/** The incident as the other event writes answer it: without our `revision` (issue 26 §2). */
function bareEvent(payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload) || !Object.hasOwn(payload, 'revision')) return payload;
  const { revision: _revision, ...rest } = payload as Record<string, unknown>;
  return rest;
}

/**
 * Issue 27: this area's earthranger-profile rules by route name (merged into rules.ts's table).
 * `events.geojson` and `events.count` are wrapped as every other read; `exports.events` is raw
 * by its prefix (a CSV file in every profile).
 */
export const AREA_RULES: Record<string, EarthRangerRule> = {
  'events.relationships.add': { kind: 'wrap', data: bareEvent },
};
