/**
 * A patrol with its segments as merge fields (protocol/merge-fields.ts). One counter and one
 * history stream per patrol: a segment's fields are `segments.<id>.<field>` of its patrol.
 */
import { PATROL_FIELDS, type SegmentField, parseFieldPath, segmentPath } from '../../../protocol/merge-fields.js';
import type { PatrolInput, SegmentInput } from '../patrols/input.js';
import type { LatLon, Patrol, PatrolSegment } from '../patrols/model.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const millis = (value: unknown): number | null => (typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : null);

/** Segment field ↔ its SegmentInput key. */
const SEGMENT_INPUT: ReadonlyArray<[SegmentField, keyof SegmentInput]> = [
  ['patrol_type', 'patrolType'], ['leader', 'leader'], ['scheduled_start', 'scheduledStart'], ['scheduled_end', 'scheduledEnd'],
  ['start_time', 'startTime'], ['end_time', 'endTime'], ['start_location', 'startLocation'], ['end_location', 'endLocation'],
];

export function flattenSegment(segment: PatrolSegment): Map<string, unknown> {
  const at = (field: SegmentField) => segmentPath(segment.id, field);
  return new Map<string, unknown>([
    [at('patrol_type'), segment.patrolTypeId],
    [at('leader'), segment.leaderType && segment.leaderId ? { type: segment.leaderType, id: segment.leaderId } : null],
    [at('scheduled_start'), iso(segment.scheduledStart)],
    [at('scheduled_end'), iso(segment.scheduledEnd)],
    [at('start_time'), iso(segment.startTime)],
    [at('end_time'), iso(segment.endTime)],
    [at('start_location'), segment.startLocation],
    [at('end_location'), segment.endLocation],
  ]);
}

export function flattenPatrol(patrol: Patrol, segments: Iterable<PatrolSegment>): Map<string, unknown> {
  const fields = new Map<string, unknown>([['title', patrol.title], ['objective', patrol.objective], ['priority', patrol.priority], ['state', patrol.state]]);
  for (const segment of segments) for (const [path, value] of flattenSegment(segment)) fields.set(path, value);
  return fields;
}

/** The patrol's own fields an update names, valued as `proposed` has them. */
export function patrolMine(input: PatrolInput, proposed: Patrol): Map<string, unknown> {
  const all = flattenPatrol(proposed, []);
  const named = new Map<string, unknown>();
  for (const field of PATROL_FIELDS) if (input[field] !== undefined) named.set(field, all.get(field) ?? null);
  return named;
}

/** The fields of an existing segment an update names, valued as `proposed` (the input applied) has them. */
export function segmentMine(input: SegmentInput, proposed: PatrolSegment): Map<string, unknown> {
  const all = flattenSegment(proposed);
  const named = new Map<string, unknown>();
  for (const [field, key] of SEGMENT_INPUT) if (input[key] !== undefined) named.set(segmentPath(proposed.id, field), all.get(segmentPath(proposed.id, field)) ?? null);
  return named;
}

/** `patrol` with `values` at its own fields (segment paths are left to applySegmentFields). */
export function applyPatrolFields(patrol: Patrol, values: ReadonlyMap<string, unknown>): Patrol {
  const next = { ...patrol };
  for (const [path, value] of values) {
    const parsed = parseFieldPath('patrol', path);
    if (parsed?.part !== 'record') continue;
    if (parsed.field === 'title') next.title = (value as string | null) ?? null;
    else if (parsed.field === 'objective') next.objective = (value as string | null) ?? null;
    else if (parsed.field === 'priority') next.priority = Number(value);
    else if (parsed.field === 'state') next.state = value as Patrol['state'];
  }
  return next;
}

/** `segment` with the `values` of its own paths. */
export function applySegmentFields(segment: PatrolSegment, values: ReadonlyMap<string, unknown>): PatrolSegment {
  const next = { ...segment };
  for (const [path, value] of values) {
    const parsed = parseFieldPath('patrol', path);
    if (parsed?.part !== 'segment' || parsed.segmentId !== segment.id) continue;
    switch (parsed.field) {
      case 'patrol_type': next.patrolTypeId = (value as string | null) ?? null; break;
      case 'leader': {
        const leader = value as { type: PatrolSegment['leaderType']; id: string } | null;
        next.leaderType = leader?.type ?? null;
        next.leaderId = leader?.id ?? null;
        break;
      }
      case 'scheduled_start': next.scheduledStart = millis(value); break;
      case 'scheduled_end': next.scheduledEnd = millis(value); break;
      case 'start_time': next.startTime = millis(value); break;
      case 'end_time': next.endTime = millis(value); break;
      case 'start_location': next.startLocation = (value as LatLon | null) ?? null; break;
      case 'end_location': next.endLocation = (value as LatLon | null) ?? null; break;
    }
  }
  return next;
}

/** A segment whose times are out of order (what applySegmentInput refuses): its paths, else none. */
export function invalidSegmentRange(segment: PatrolSegment): boolean {
  return (segment.scheduledStart !== null && segment.scheduledEnd !== null && segment.scheduledStart >= segment.scheduledEnd)
    || (segment.startTime !== null && segment.endTime !== null && segment.startTime >= segment.endTime);
}
