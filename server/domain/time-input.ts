import { FieldIssue, InputError } from './errors.js';

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Parses an ISO 8601 date-time that carries an offset (CONTRACT §1: none is 400). Returns epoch
 * ms, or null when the text is not such a date-time. A `+` that a query string decoded to a
 * space is put back (clients often send `...T10:00:00+00:00` unencoded).
 */
export function parseIsoWithOffset(raw: string): number | null {
  const text = raw.trim().replace(/ (\d{2}:?\d{2})$/, '+$1');
  const match = ISO_WITH_OFFSET.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute] = match.map(Number) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 23 || minute! > 59 || Number(match[6] ?? 0) > 59) return null;
  const millis = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(millis)) return null;
  // Date.parse rolls 2026-02-31 over to March: reject dates that do not exist.
  const check = new Date(Date.UTC(year!, month! - 1, day!));
  return check.getUTCDate() === day ? millis : null;
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
