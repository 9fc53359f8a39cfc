import type { EarthRangerRule } from './rules.js';

const RAW: EarthRangerRule = { kind: 'raw' };

/**
 * Issue 27: this area's earthranger-profile rules by route name (merged into rules.ts's table).
 * Messages take the default (`{data, status}` around the same body). The web app reads the
 * feature sets and a set's FeatureCollection from the body itself (`data.features` of axios),
 * as the original serves them: raw. `features.group` (Python client) is wrapped.
 */
export const AREA_RULES: Record<string, EarthRangerRule> = {
  'features.sets': RAW,
  'features.set': RAW,
  'feature.get': RAW,
};
