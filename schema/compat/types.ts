/**
 * Issue 28: the breaking-change lint's shared vocabulary. A `UsageSummary` is what the server
 * answers at `GET /api/v2.0/activity/eventtypes/:key/usage` (this exact JSON, snake_case, in
 * `data`), what the mirror keeps, and what `checkCompatibility` reads: one shape everywhere.
 */

/** The JSON kinds counted per field. `integer` is a number with no fraction; `number` one with. */
export type ValueKind = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/**
 * One top-level key of `event_details` among the stored events of one type. For an array value,
 * `values` counts each scalar element once per event (a multi-select choice field).
 */
export interface FieldUsage {
  /** Events holding this key at all. */
  events: number;
  /** Events by the JSON kind of the value (array elements are not counted here). */
  kinds: Partial<Record<ValueKind, number>>;
  /**
   * Distinct scalar values (strings up to 200 characters, numbers, booleans; `null` is a kind, not
   * a value) and how many events hold each, most frequent first, ties by canonical value (the
   * `JSON.stringify` text compared by UTF-16 code units); at most 1,000. `values_complete` says
   * whether every scalar value held is listed (false when there are more distinct values, or
   * longer strings). Reference implementation: `summariseEvents` (summarise.ts).
   */
  values: Array<{ value: string | number | boolean; events: number }>;
  values_complete: boolean;
  /** Over every numeric value (elements too); absent when there is none. */
  min?: number;
  max?: number;
  /** Over every string value's length in UTF-16 code units (elements too); absent when none. */
  min_length?: number;
  max_length?: number;
}

export interface UsageSummary {
  /** The type's `value` the events were recorded under. */
  event_type: string;
  /** Events of this type (deleted events are not counted). */
  events: number;
  /** By top-level `event_details` key. */
  fields: Record<string, FieldUsage>;
  /**
   * False when the events hold more keys than `fields` lists (a server lists at most 1,000 per
   * summary and 2,000 per answer): a key absent from `fields` may then still be held, so no
   * claim is made about it. This server and summariseEvents always set it; optional because a
   * summary from an older server (or kept by an older mirror) lacks it, and then reads as true.
   */
  fields_complete?: boolean;
}

/** Rule ids of the breaking-change lint; `--allow-breaking <rule>` names one of these. */
export const COMPAT_RULES = [
  'breaking/removed-field',
  'breaking/removed-choice',
  'breaking/narrowed-type',
  'breaking/required-added',
  'breaking/renamed-value',
] as const;
export type CompatRule = (typeof COMPAT_RULES)[number];

/** A deliberate break, recorded with why (`--allow-breaking <rule> --reason TEXT`). */
export interface AllowedBreak {
  rule: CompatRule;
  reason: string;
}

export interface CompatFinding {
  rule: CompatRule;
  /** `error` unless allowed (then `warning`, with `allowed` set). */
  severity: 'error' | 'warning';
  /** The `event_details` key concerned (absent for `breaking/renamed-value`). */
  field?: string;
  /**
   * JSON Pointer into the proposed document (`/json/properties/<key>`…), for line:column: the
   * narrowed keyword, the field's choices, `/json/required`; for a removed field where it was
   * (a likely rename: the new field); '' (the whole document) for `breaking/renamed-value`.
   */
  pointer: string;
  message: string;
  hint: string;
  /** Stored events this finding affects (never 0: a change no stored event is hurt by is no finding). */
  affected_events: number;
  /** True when `affected_events` is a lower bound (the summary's values were not complete). */
  affected_at_least?: boolean;
  allowed?: { reason: string };
}
