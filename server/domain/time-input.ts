import { FieldIssue, InputError } from './errors.js';

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/i;

/**
 * Parses an ISO 8601 date-time that carries an offset (CONTRACT §1: none is 400). Returns epoch
 * ms, or null when the text is not such a date-time. A `+` that a query string decoded to a
 * space is put back (clients often send `...T10:00:00+00:00` unencoded). Fractions beyond
 * milliseconds are truncated; dates that do not exist (2026-02-31) and offsets beyond ±23:59
 * are refused (as Date.parse would). Computed from the fields, not by Date.parse: a sensor
 * batch parses thousands of these.
 */
export function parseIsoWithOffset(raw: string): number | null {
  // The common case (no surrounding space, no decoded `+`) allocates nothing before the match.
  const text = raw.includes(' ') || /^\s|\s$/.test(raw) ? raw.trim().replace(/ (\d{2}:?\d{2})$/, '+$1') : raw;
  const match = ISO_WITH_OFFSET.exec(text);
  if (!match) return null;
  const year = Number(match[1]), month = Number(match[2]), day = Number(match[3]), hour = Number(match[4]), minute = Number(match[5]);
  const second = Number(match[6] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const offsetHours = match[8] ? 0 : Number(match[10]), offsetMinutes = match[8] ? 0 : Number(match[11]);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const millis = match[7] ? Number(match[7].slice(0, 3).padEnd(3, '0')) : 0;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year); // Date.UTC reads years 0-99 as 1900-1999
  // A day past the month's end rolls over into the next month: such a date does not exist.
  if (date.getUTCDate() !== day) return null;
  const sign = match[9] === '-' ? -1 : 1;
  return date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

export function requireIsoWithOffset(raw: unknown, field: string): number {
  if (typeof raw !== 'string') throw InputError.field(field, 'invalid_type', 'Expected an ISO 8601 date-time string.', ['For example 2026-11-20T10:00:00.000+00:00.']);
  const millis = parseIsoWithOffset(raw);
  if (millis === null) throw new InputError('Invalid date-time.', { [field]: [invalidDate(raw)] });
  return millis;
}

export function invalidDate(raw: string): FieldIssue {
  return {
    code: 'invalid_datetime',
    message: `"${raw.slice(0, 60)}" is not an ISO 8601 date-time with an offset.`,
    hints: ['Use a form like 2026-11-20T10:00:00.000+00:00 (the offset is required).'],
  };
}
