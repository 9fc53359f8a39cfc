/**
 * The scope keys a record is in (protocol/scope-keys.ts is the grammar), computed on write from
 * the facts read in the writing transaction. Pure: no storage, no clock.
 */
import { isScopeKey, keys } from '../../../protocol/scope-keys.js';
import type { RecordFacts } from './ports.js';

const CATALOG_KEY = {
  patrol_type: 'cat:patrol_types',
  event_type: 'cat:event_types',
  event_category: 'cat:event_categories',
  choice: 'cat:choices',
} as const;

/**
 * Sorted, each key once. NOTE: a value whose key would break the grammar (a category longer
 * than the key allows once percent-encoded, say) gives no key of that family: the record stays
 * in its other keys (`ev:all` at least), and the stored key always parses.
 */
export function scopeKeysOf(facts: RecordFacts): string[] {
  const out: string[] = [];
  switch (facts.kind) {
    case 'event':
      out.push('ev:all');
      if (facts.time) out.push(keys.eventDay(facts.time));
      const category = categoryKeyOf(facts.category);
      if (category) out.push(category);
      if (facts.createdBy) out.push(keys.eventBy(facts.createdBy));
      if (isCoordinate(facts.latitude, 90) && isCoordinate(facts.longitude, 180)) out.push(keys.eventCell(facts.latitude, facts.longitude));
      for (const group of facts.teams) out.push(keys.eventTeam(group));
      break;
    case 'patrol':
      out.push('pa:all');
      if (facts.state === 'open') out.push('pa:open');
      if (facts.startTime) out.push(keys.patrolDay(facts.startTime));
      for (const user of facts.users) out.push(keys.patrolBy(user));
      for (const group of facts.teams) out.push(keys.patrolTeam(group));
      break;
    case 'subject':
      if (facts.groups.length === 0) out.push('su:nogroup');
      for (const group of facts.groups) out.push(keys.subjectGroup(group));
      break;
    default:
      out.push(CATALOG_KEY[facts.kind]);
  }
  return [...new Set(out.filter(isScopeKey))].sort();
}

/** An event's category key (null: none, or none the grammar can hold). */
export function categoryKeyOf(category: string | null): string | null {
  if (!category) return null;
  const key = keys.eventCategory(category);
  return isScopeKey(key) ? key : null;
}

/** A finite coordinate within ±limit (a latitude of exactly 90 falls in cell 90, which the grammar allows). */
function isCoordinate(value: number | null, limit: number): value is number {
  return value !== null && Number.isFinite(value) && Math.abs(value) <= limit;
}
