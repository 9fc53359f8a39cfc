import type { EarthRangerRule } from './rules.js';

/** Issue 27: this area's earthranger-profile rules by route name (merged into rules.ts's table). */
export const AREA_RULES: Record<string, EarthRangerRule> = {};
