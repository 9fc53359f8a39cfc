/**
 * Scope keys: the names of the sets of records a laptop can ask for (docs/sync.md §Scopes).
 * A record is in several keys at once; a laptop holds the union of the keys it asked for and
 * was granted. Values are percent-encoded (`encodeURIComponent`), so a key never holds a space.
 *
 * - events: `ev:all`, `ev:day:<YYYY-MM-DD of the event time, UTC>`, `ev:cat:<category value>`,
 *   `ev:by:<creating user id>`, `ev:cell:<floor(lat)>:<floor(lon)>` (1° cells; events without a
 *   location are in none), `ev:team:<subject group id>` (the groups of the leaders of the patrol
 *   segments the event is linked to)
 * - patrols: `pa:all`, `pa:open` (state open), `pa:day:<YYYY-MM-DD of the patrol's start>`,
 *   `pa:by:<creating or leading user id>`, `pa:team:<subject group id of a segment leader>`
 * - subjects: `su:group:<subject group id>`, `su:nogroup`
 * - catalogs: `cat:patrol_types`, `cat:event_types`, `cat:event_categories`, `cat:choices`
 * - patterns the server expands to what the user may see: `su:*`, `cat:*`
 */

export const MAX_KEY_LENGTH = 120;

const KEY_SHAPES: ReadonlyArray<RegExp> = [
  /^ev:all$/,
  /^ev:day:\d{4}-\d{2}-\d{2}$/,
  /^ev:cat:[^\s:]{1,100}$/,
  /^ev:by:[^\s:]{1,64}$/,
  /^ev:cell:-?\d{1,2}:-?\d{1,3}$/,
  /^ev:team:[^\s:]{1,64}$/,
  /^pa:all$/,
  /^pa:open$/,
  /^pa:day:\d{4}-\d{2}-\d{2}$/,
  /^pa:by:[^\s:]{1,64}$/,
  /^pa:team:[^\s:]{1,64}$/,
  /^su:group:[^\s:]{1,64}$/,
  /^su:nogroup$/,
  /^cat:(patrol_types|event_types|event_categories|choices)$/,
];

export const KEY_PATTERNS = ['su:*', 'cat:*'] as const;
export const CATALOG_KEYS = ['cat:patrol_types', 'cat:event_types', 'cat:event_categories', 'cat:choices'] as const;

/** A concrete scope key (not a pattern), bounded in length. */
export function isScopeKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY_SHAPES.some((shape) => shape.test(key));
}

export function isKeyPattern(key: string): boolean {
  return (KEY_PATTERNS as readonly string[]).includes(key);
}

const part = (value: string) => encodeURIComponent(value);

export const keys = {
  eventDay: (iso: string) => `ev:day:${iso.slice(0, 10)}`,
  eventCategory: (value: string) => `ev:cat:${part(value)}`,
  eventBy: (userId: string) => `ev:by:${part(userId)}`,
  // The north pole and the antimeridian's east side fall into the last cell, as cellKeys covers them.
  eventCell: (latitude: number, longitude: number) => `ev:cell:${Math.floor(Math.min(latitude, 89.999999))}:${Math.floor(Math.min(longitude, 179.999999))}`,
  eventTeam: (groupId: string) => `ev:team:${part(groupId)}`,
  patrolDay: (iso: string) => `pa:day:${iso.slice(0, 10)}`,
  patrolBy: (userId: string) => `pa:by:${part(userId)}`,
  patrolTeam: (groupId: string) => `pa:team:${part(groupId)}`,
  subjectGroup: (groupId: string) => `su:group:${part(groupId)}`,
} as const;

/** The UTC day keys of the `days` days ending today (newest first). */
export function dayKeys(prefix: 'ev:day' | 'pa:day', days: number, now: number): string[] {
  const out: string[] = [];
  const today = Math.floor(now / 86_400_000);
  for (let d = 0; d < days; d++) out.push(`${prefix}:${new Date((today - d) * 86_400_000).toISOString().slice(0, 10)}`);
  return out;
}

/** The 1° cells covering a box (west, south, east, north in degrees); null when over `limit` cells. */
export function cellKeys(west: number, south: number, east: number, north: number, limit: number): string[] | null {
  const out: string[] = [];
  const lats = Math.floor(Math.min(north, 89.999999)) - Math.floor(south) + 1;
  const lonEnd = Math.floor(Math.min(east, 179.999999));
  const lons = lonEnd - Math.floor(west) + 1;
  if (lats <= 0 || lons <= 0 || lats * lons > limit) return null;
  for (let lat = Math.floor(south); lat < Math.floor(south) + lats; lat++) {
    for (let lon = Math.floor(west); lon <= lonEnd; lon++) out.push(`ev:cell:${lat}:${lon}`);
  }
  return out;
}
