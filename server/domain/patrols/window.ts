import type { Patrol, PatrolSegment, PatrolState, PatrolWindow } from './model.js';

/**
 * What the segments imply for the patrol. A segment's span runs from its actual start (else
 * its scheduled start) to its actual end (else its scheduled end); a span with a start and no
 * end is open-ended. The patrol's window is the union of its segments' spans.
 */
export function patrolWindow(segments: readonly PatrolSegment[]): PatrolWindow {
  let windowStart: number | null = null;
  let windowEnd: number | null = null;
  let openEnded = false;
  let actualStart: number | null = null;
  let scheduledStart: number | null = null;
  for (const segment of segments) {
    const start = segment.startTime ?? segment.scheduledStart;
    const end = segment.endTime ?? segment.scheduledEnd;
    if (start !== null) {
      windowStart = windowStart === null ? start : Math.min(windowStart, start);
      if (end === null) openEnded = true;
    }
    if (end !== null) windowEnd = windowEnd === null ? end : Math.max(windowEnd, end);
    if (segment.startTime !== null) actualStart = actualStart === null ? segment.startTime : Math.min(actualStart, segment.startTime);
    if (segment.scheduledStart !== null) scheduledStart = scheduledStart === null ? segment.scheduledStart : Math.min(scheduledStart, segment.scheduledStart);
  }
  const ends = segments.map((segment) => segment.endTime);
  const allEndedAt = segments.length > 0 && ends.every((end) => end !== null) ? Math.max(...(ends as number[])) : null;
  return { segmentCount: segments.length, windowStart, windowEnd: openEnded ? null : windowEnd, openEnded, actualStart, scheduledStart, allEndedAt };
}

/**
 * The automatic transitions (CONTRACT §6): an open patrol whose every segment has ended in the
 * past becomes done; a done patrol one of whose ends was cleared becomes open again;
 * cancelled never changes by itself. Returns the state the patrol should be in.
 */
export function automaticState(patrol: Pick<Patrol, 'state'>, window: PatrolWindow, now: number, endCleared: boolean): PatrolState {
  if (patrol.state === 'open' && window.allEndedAt !== null && window.allEndedAt <= now) return 'done';
  if (patrol.state === 'done' && endCleared && window.allEndedAt === null) return 'open';
  return patrol.state;
}

export type PatrolStatus = 'scheduled' | 'active' | 'overdue' | 'done' | 'cancelled';
export const PATROL_STATUSES: readonly PatrolStatus[] = ['scheduled', 'active', 'overdue', 'done', 'cancelled'];
