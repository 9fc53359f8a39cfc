import { type FieldIssue, InputError } from '../errors.js';
import { parseIsoWithOffset } from '../time-input.js';
import { PATROL_STATUSES, type PatrolStatus } from './window.js';

export interface PatrolListFilter {
  dateRange: { lower: number | null; upper: number | null } | null;
  /** true: patrols whose window overlaps the range; false: patrols that start within it. */
  overlap: boolean;
  text: string | null;
  /** Patrol type ids or values, as sent (resolved by the service). */
  patrolTypes: string[] | null;
  trackedBy: string[] | null;
  statuses: PatrolStatus[] | null;
  excludeEmpty: boolean;
  /** Only patrols changed at or after this instant (epoch ms): incremental pulls (issue 16). */
  updatedSince: number | null;
}

const FILTER_KEYS = ['date_range', 'patrols_overlap_daterange', 'text', 'patrol_type', 'tracked_by'];

/**
 * The list's query (CONTRACT §6): `filter` is JSON `{date_range: {lower, upper},
 * patrols_overlap_daterange (default true), text, patrol_type: [...], tracked_by: [...]}`;
 * `status` repeats; `exclude_empty_patrols` is a boolean. Anything malformed is 400.
 */
export function readPatrolFilter(filterParam: string | undefined, statuses: string[], excludeEmpty: boolean, updatedSince?: string): PatrolListFilter {
  const errors: Record<string, FieldIssue[]> = {};
  const fail = (field: string, message: string, hint: string) => (errors[field] ??= []).push({ code: 'invalid', message, hints: [hint] });
  const result: PatrolListFilter = { dateRange: null, overlap: true, text: null, patrolTypes: null, trackedBy: null, statuses: null, excludeEmpty, updatedSince: null };
  if (updatedSince !== undefined && updatedSince !== '') {
    result.updatedSince = parseIsoWithOffset(updatedSince);
    if (result.updatedSince === null) fail('updated_since', 'updated_since is not an ISO 8601 date-time with an offset.', 'For example 2026-11-20T10:00:00+00:00.');
  }
  if (filterParam !== undefined && filterParam !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(filterParam);
    } catch {
      throw InputError.field('filter', 'parse_error', 'filter is not valid JSON.', ['Send a URL-encoded JSON object, e.g. {"date_range": {"lower": "2026-11-01T00:00:00Z"}}.']);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw InputError.field('filter', 'invalid', 'filter must be a JSON object.', ['For example {"text": "fence"}.']);
    const filter = parsed as Record<string, unknown>;
    for (const key of Object.keys(filter)) if (!FILTER_KEYS.includes(key)) fail('filter', `Unknown filter key "${key}".`, `Known keys: ${FILTER_KEYS.join(', ')}.`);
    if (filter.date_range !== undefined && filter.date_range !== null) {
      const range = filter.date_range as Record<string, unknown>;
      const bound = (name: 'lower' | 'upper') => {
        const raw = range?.[name];
        if (raw === undefined || raw === null || raw === '') return null;
        const millis = typeof raw === 'string' ? parseIsoWithOffset(raw) : null;
        if (millis === null) fail('filter', `date_range.${name} is not an ISO 8601 date-time with an offset.`, 'For example 2026-11-20T10:00:00+00:00.');
        return millis;
      };
      if (typeof range !== 'object' || Array.isArray(range)) fail('filter', 'date_range must be {lower, upper}.', 'Either bound may be left out.');
      else {
        result.dateRange = { lower: bound('lower'), upper: bound('upper') };
        if (result.dateRange.lower !== null && result.dateRange.upper !== null && result.dateRange.lower > result.dateRange.upper) fail('filter', 'date_range.lower is after date_range.upper.', 'Swap the bounds.');
      }
    }
    if (filter.patrols_overlap_daterange !== undefined) {
      if (typeof filter.patrols_overlap_daterange !== 'boolean') fail('filter', 'patrols_overlap_daterange must be a boolean.', 'true or false.');
      else result.overlap = filter.patrols_overlap_daterange;
    }
    if (filter.text !== undefined && filter.text !== null) {
      if (typeof filter.text !== 'string' || filter.text.length > 200) fail('filter', 'text must be a string of at most 200 characters.', 'For example {"text": "fence"}.');
      else if (filter.text.trim()) result.text = filter.text.trim();
    }
    for (const [key, target] of [['patrol_type', 'patrolTypes'], ['tracked_by', 'trackedBy']] as const) {
      const list = filter[key];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list) || list.length > 500 || !list.every((item) => typeof item === 'string' && item.length <= 100)) fail('filter', `${key} must be an array of ids.`, `For example {"${key}": ["<uuid>"]}.`);
      // CONTRACT §11: the web app always sends both lists; an empty one is no filter.
      else if (list.length > 0) result[target] = list as string[];
    }
  }
  if (statuses.length > 0) {
    const unknown = statuses.filter((status) => !PATROL_STATUSES.includes(status as PatrolStatus));
    if (unknown.length) fail('status', `Unknown status ${unknown.map((s) => `"${s}"`).join(', ')}.`, `Use ${PATROL_STATUSES.join(', ')}.`);
    else result.statuses = [...new Set(statuses)] as PatrolStatus[];
  }
  if (Object.keys(errors).length > 0) throw new InputError('Invalid patrol list query.', errors);
  return result;
}
