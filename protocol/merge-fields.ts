/**
 * The fields an offline update is merged by (issue 26 §3; docs/design/offline-writes-plan.md §3).
 * Shared by the server's merge (server/domain/merge) and the CLI's conflict display; imports
 * nothing of ours.
 *
 * A field is named by a path. Event: `title`, `time`, `location`, `priority`, `state`,
 * `event_type`, and `event_details.<top-level key>` (each key its own field). Patrol: `title`,
 * `objective`, `priority`, `state`, and `segments.<segment id>.<segment field>` (`time_range`
 * is split into `start_time` and `end_time`, so ending a segment never collides with a
 * corrected start). Notes, files and segment links are append-only sets: never in conflict.
 *
 * Values in history and conflict rows are JSON: times as ISO 8601 UTC strings (or null),
 * locations `{latitude, longitude}` (or null), a segment's `leader` `{type, id}`, its
 * `patrol_type` the type's id. An absent event_details key is null.
 */

export const MERGE_KINDS = ['event', 'patrol'] as const;
export type MergeKind = (typeof MERGE_KINDS)[number];

export const EVENT_FIELDS = ['title', 'time', 'location', 'priority', 'state', 'event_type'] as const;
export type EventField = (typeof EVENT_FIELDS)[number];
export const EVENT_DETAILS_PREFIX = 'event_details.';

export const PATROL_FIELDS = ['title', 'objective', 'priority', 'state'] as const;
export type PatrolField = (typeof PATROL_FIELDS)[number];

export const SEGMENT_FIELDS = ['patrol_type', 'leader', 'scheduled_start', 'scheduled_end', 'start_time', 'end_time', 'start_location', 'end_location'] as const;
export type SegmentField = (typeof SEGMENT_FIELDS)[number];
export const SEGMENTS_PREFIX = 'segments.';

/** The longest path stored (record_conflicts.field is varchar(200)). */
export const MAX_FIELD_PATH = 200;

export const detailPath = (key: string): string => `${EVENT_DETAILS_PREFIX}${key}`;
export const segmentPath = (segmentId: string, field: SegmentField): string => `${SEGMENTS_PREFIX}${segmentId}.${field}`;

export type ParsedPath =
  | { part: 'record'; field: string }
  | { part: 'detail'; key: string }
  | { part: 'segment'; segmentId: string; field: SegmentField };

/** What a path names; null when it is none of the kind's fields. */
export function parseFieldPath(kind: MergeKind, path: string): ParsedPath | null {
  if (kind === 'event') {
    if (path.startsWith(EVENT_DETAILS_PREFIX) && path.length > EVENT_DETAILS_PREFIX.length) return { part: 'detail', key: path.slice(EVENT_DETAILS_PREFIX.length) };
    return (EVENT_FIELDS as readonly string[]).includes(path) ? { part: 'record', field: path } : null;
  }
  if (path.startsWith(SEGMENTS_PREFIX)) {
    const rest = path.slice(SEGMENTS_PREFIX.length);
    const dot = rest.lastIndexOf('.');
    const field = rest.slice(dot + 1);
    if (dot <= 0 || !(SEGMENT_FIELDS as readonly string[]).includes(field)) return null;
    return { part: 'segment', segmentId: rest.slice(0, dot), field: field as SegmentField };
  }
  return (PATROL_FIELDS as readonly string[]).includes(path) ? { part: 'record', field: path } : null;
}

/** Equality of two field values: JSON-equal, object keys in any order, absent = null. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
