/**
 * Building one event to queue: the envelope fields (time, location, priority, state) checked as
 * the server checks them (CONTRACT §5b), `event_details` checked against the type's schema.
 * Problems are returned, never thrown, so an import can report every row.
 */
import type { EventTypeForRecording } from './event-type.js';

export const EVENT_STATES = ['new', 'active', 'resolved'] as const;
export const PRIORITIES = [0, 100, 200, 300] as const;

export interface RecordIssue {
  /** The input's name for where the problem is: a CSV column, `event_details`, `time`... */
  field: string;
  /** JSON Pointer into the event body. */
  pointer: string;
  code: string;
  message: string;
  hints: string[];
}

export interface EventInput {
  time?: string;
  location?: { latitude: number; longitude: number } | null;
  priority?: number;
  state?: string;
  title?: string;
  details: Record<string, unknown>;
}

export function checkTime(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value));
}

export function checkLocation(latitude: number, longitude: number): boolean {
  return Number.isFinite(latitude) && Number.isFinite(longitude) && latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180;
}

/** Parses `LAT,LON`; null when it is not two numbers in range. */
export function parseLocation(text: string): { latitude: number; longitude: number } | null {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length !== 2 || parts.some((p) => p === '')) return null;
  const [latitude, longitude] = parts.map(Number) as [number, number];
  return checkLocation(latitude, longitude) ? { latitude, longitude } : null;
}

export function buildEvent(type: EventTypeForRecording, id: string, input: EventInput): { body: Record<string, unknown>; issues: RecordIssue[] } {
  const issues: RecordIssue[] = [];
  if (input.time !== undefined && !checkTime(input.time)) {
    issues.push({ field: 'time', pointer: '/time', code: 'invalid_datetime', message: `time "${input.time}" is not an ISO 8601 date-time with an offset`, hints: ['for example 2026-11-20T10:00:00+00:00'] });
  }
  if (input.location && !checkLocation(input.location.latitude, input.location.longitude)) {
    issues.push({ field: 'location', pointer: '/location', code: 'invalid_location', message: 'latitude is -90..90 and longitude -180..180', hints: ['for example -1.29,36.82'] });
  }
  if (input.priority !== undefined && !(PRIORITIES as readonly number[]).includes(input.priority)) {
    issues.push({ field: 'priority', pointer: '/priority', code: 'invalid_priority', message: `priority ${input.priority} is not one of ${PRIORITIES.join(', ')}`, hints: ['0 gray, 100 green, 200 amber, 300 red'] });
  }
  if (input.state !== undefined && !(EVENT_STATES as readonly string[]).includes(input.state)) {
    issues.push({ field: 'state', pointer: '/state', code: 'invalid_state', message: `state "${input.state}" is not one of ${EVENT_STATES.join(', ')}`, hints: [] });
  }
  const result = type.validate(input.details);
  for (const issue of result.issues) {
    const name = issue.pointer.split('/')[1] ?? '';
    issues.push({ field: name || 'event_details', pointer: `/event_details${issue.pointer}`, code: issue.code, message: issue.message, hints: issue.hints });
  }
  const body: Record<string, unknown> = { id, event_type: type.value, time: input.time ?? new Date().toISOString(), event_details: input.details };
  if (input.title !== undefined) body.title = input.title;
  if (input.location) body.location = input.location;
  if (input.priority !== undefined) body.priority = input.priority;
  if (input.state !== undefined) body.state = input.state;
  return { body, issues };
}
