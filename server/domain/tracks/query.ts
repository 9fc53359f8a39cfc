import { type FieldIssue, InputError } from '../errors.js';
import { isUuid } from '../ids.js';
import { invalidDate, parseIsoWithOffset } from '../time-input.js';

/** Query parameters as strings (absent: undefined). */
export type TrackQuery = Record<string, string | undefined>;

/** Later than any fix: the end of an open assignment or of an unbounded range (Date's maximum). */
export const OPEN_END = 8.64e15;
/** The default window of a track: the last 16 days (the original's `status.show_track_days`). */
export const DEFAULT_TRACK_DAYS = 16;
const DAY = 86_400_000;

/** A time range on recorded_at: [since, until] inclusive, as [from, to) for the reads. */
export interface TimeRange {
  from: number;
  to: number;
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off', '']);

/** The boolean parameters the track routes read (QueryReader.boolean). */
export const TRACK_QUERY_BOOLEANS = ['include_inactive', 'current_status'] as const;

/**
 * The query as the original reads it (issue 27, the earthranger profile; http/query.ts
 * queryBoolean does the same for the other routes): an unrecognised boolean
 * (`include_inactive=maybe`) is `false` (Django's reading), not a 400. The HTTP layer applies it
 * for callers in that profile, so the services stay profile-free.
 */
export function unknownBooleansAsFalse(query: TrackQuery): TrackQuery {
  const out: TrackQuery = { ...query };
  for (const name of TRACK_QUERY_BOOLEANS) {
    const value = out[name];
    if (value !== undefined && !TRUE.has(value.toLowerCase()) && !FALSE.has(value.toLowerCase())) out[name] = 'false';
  }
  return out;
}

/** Collects the issues of one query, reported together as one 400. */
export class QueryReader {
  private readonly errors: Record<string, FieldIssue[]> = {};

  constructor(private readonly query: TrackQuery) {}

  /** The first of the names that is present (aliases: the clients name some parameters differently). */
  private raw(names: readonly string[]): { name: string; value: string } | null {
    for (const name of names) {
      const value = this.query[name];
      if (value !== undefined && value !== '') return { name, value };
    }
    return null;
  }

  time(names: readonly string[]): number | null {
    const found = this.raw(names);
    if (!found) return null;
    const millis = parseIsoWithOffset(found.value);
    if (millis === null) this.errors[found.name] = [invalidDate(found.value)];
    return millis;
  }

  uuid(name: string): string | null {
    const found = this.raw([name]);
    if (!found) return null;
    if (isUuid(found.value)) return found.value.toLowerCase();
    this.errors[name] = [{ code: 'invalid', message: `${name} must be a UUID.`, hints: [] }];
    return null;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.query[name];
    if (value === undefined) return fallback;
    const lower = value.toLowerCase();
    if (TRUE.has(lower)) return true;
    if (FALSE.has(lower)) return false;
    this.errors[name] = [{ code: 'invalid_boolean', message: `"${value.slice(0, 40)}" is not a boolean.`, hints: ['Use true or false.'] }];
    return fallback;
  }

  positiveInteger(name: string, max: number): number | null {
    const found = this.raw([name]);
    if (!found) return null;
    if (/^[0-9]{1,16}$/.test(found.value) && Number(found.value) >= 1) return Math.min(Number(found.value), max);
    this.errors[name] = [{ code: 'invalid', message: `${name} must be a positive integer.`, hints: [] }];
    return null;
  }

  choice<T extends string>(name: string, choices: readonly T[], fallback: T): T {
    const found = this.raw([name]);
    if (!found) return fallback;
    const lower = found.value.toLowerCase() as T;
    if (choices.includes(lower)) return lower;
    this.errors[name] = [{ code: 'invalid_choice', message: `${name} "${found.value.slice(0, 40)}" is not supported.`, hints: [`Use ${choices.join(' or ')}.`] }];
    return fallback;
  }

  refuse(name: string, message: string, hints: string[]): void {
    if (this.raw([name])) this.errors[name] = [{ code: 'not_supported', message, hints }];
  }

  /** Throws the 400 when anything was wrong. */
  done(): void {
    if (Object.keys(this.errors).length > 0) throw new InputError('Invalid query parameters.', this.errors);
  }
}

/**
 * `since`/`until` (and their aliases), inclusive; `since` defaults to `defaultDays` before now
 * (null: unbounded), `until` to unbounded. A `since` after `until` is an empty range, not an error.
 */
export function readRange(reader: QueryReader, now: number, defaultDays: number | null, aliases: { since: readonly string[]; until: readonly string[] }): TimeRange {
  const since = reader.time(aliases.since);
  const until = reader.time(aliases.until);
  const from = since ?? (defaultDays === null ? 0 : now - defaultDays * DAY);
  const to = until === null ? OPEN_END : until + 1;
  return { from, to: Math.max(from, to) };
}

/** An assignment's part of a range: [max(lower, from), min(upper, to)). */
export function clip(range: TimeRange, lower: number, upper: number | null): TimeRange | null {
  const from = Math.max(range.from, lower);
  const to = Math.min(range.to, upper ?? OPEN_END);
  return from < to ? { from, to } : null;
}
