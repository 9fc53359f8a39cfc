import { type FieldIssue, InputError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ObservationFilter } from '../ports.js';
import { invalidDate, parseIsoWithOffset } from '../time-input.js';

/** Query parameters of `GET /api/v1.0/observations`, as strings (absent = undefined). */
export interface ObservationQuery {
  source_id?: string;
  subject_id?: string;
  since?: string;
  until?: string;
  ordering?: string;
}

/**
 * `source_id`, `subject_id` (UUIDs), `since`/`until` (ISO 8601 with offset, inclusive bounds on
 * recorded_at), `ordering` (`recorded_at`, the default, or `-recorded_at`). Every problem is a
 * 400 reported at once.
 */
export function readObservationFilter(query: ObservationQuery): ObservationFilter {
  const errors: Record<string, FieldIssue[]> = {};
  const uuid = (name: 'source_id' | 'subject_id') => {
    const raw = query[name];
    if (raw === undefined || raw === '') return null;
    if (isUuid(raw)) return raw.toLowerCase();
    errors[name] = [{ code: 'invalid', message: `${name} must be a UUID.`, hints: [] }];
    return null;
  };
  const time = (name: 'since' | 'until') => {
    const raw = query[name];
    if (raw === undefined || raw === '') return null;
    const millis = parseIsoWithOffset(raw);
    if (millis === null) errors[name] = [invalidDate(raw)];
    return millis;
  };
  const filter: ObservationFilter = { sourceId: uuid('source_id'), subjectId: uuid('subject_id'), since: time('since'), until: time('until'), newestFirst: false };
  const ordering = query.ordering ?? 'recorded_at';
  if (ordering === '-recorded_at') filter.newestFirst = true;
  else if (ordering !== 'recorded_at' && ordering !== '') errors.ordering = [{ code: 'invalid_choice', message: `ordering "${ordering.slice(0, 40)}" is not supported.`, hints: ['Use recorded_at or -recorded_at.'] }];
  if (Object.keys(errors).length > 0) throw new InputError('Invalid observation query.', errors);
  return filter;
}
