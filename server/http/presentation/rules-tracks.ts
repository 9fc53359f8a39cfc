import type { EarthRangerRule } from './rules.js';

/** A track without our `truncated` flag: the original's feature properties, exactly. */
function originalTrack(payload: unknown): unknown {
  const collection = payload as { features?: Array<{ properties?: Record<string, unknown> }> } | null;
  if (!collection || !Array.isArray(collection.features)) return payload;
  return {
    ...collection,
    features: collection.features.map((feature) => {
      if (!feature?.properties || !('truncated' in feature.properties)) return feature;
      const { truncated: _truncated, ...properties } = feature.properties;
      return { ...feature, properties };
    }),
  };
}

/**
 * Issue 27, tracks: earthranger-profile rules by route name (merged into rules.ts's table).
 * Tracks and positions are wrapped (the web app reads `data`, er-client too); `kml.*` and
 * `exports.*` are files, raw by their prefix.
 */
export const AREA_RULES: Record<string, EarthRangerRule> = {
  'tracks.subject': { kind: 'wrap', data: originalTrack },
  'tracks.source': { kind: 'wrap', data: originalTrack },
};
