import { randomUUID } from 'node:crypto';
import { type FieldIssue, InputError } from '../errors.js';
import type { Repositories } from '../ports.js';
import type { SegmentInput } from './input.js';
import type { PatrolSegment, SegmentView } from './model.js';

/** A segment as a write leaves it, with the type and leader it looked up (undefined: not looked up). */
export interface AppliedSegment {
  segment: PatrolSegment;
  patrolType?: SegmentView['patrolType'];
  leader?: SegmentView['leader'];
}

/**
 * Builds the segment a write asks for, from the current one (or none) and the input: resolves
 * the patrol type by value (unknown or deactivated: 400) and the leader (unknown: 400), and
 * checks that starts come before ends. `field` prefixes error keys for nested segments.
 * Returns the segment with what it resolved, so that a create can present it without reading back.
 */
export async function applySegmentInput(
  repos: Repositories,
  tenantId: string,
  patrolId: string,
  current: PatrolSegment | null,
  input: SegmentInput,
  now: number,
  field = '',
): Promise<AppliedSegment> {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const errors: Record<string, FieldIssue[]> = {};
  const fail = (name: string, code: string, message: string, hint: string) => (errors[at(name)] ??= []).push({ code, message, hints: [hint] });
  const applied: Omit<AppliedSegment, 'segment'> = {};
  const next: PatrolSegment = current
    ? { ...current, updatedAt: now }
    : {
        id: input.id ?? randomUUID(), tenantId, patrolId, patrolTypeId: null, leaderType: null, leaderId: null, scheduledStart: null,
        scheduledEnd: null, startTime: null, endTime: null, startLocation: null, endLocation: null, createdAt: now, updatedAt: now, revision: 1,
      };
  if (input.patrolType !== undefined) {
    if (input.patrolType === null) {
      next.patrolTypeId = null;
      applied.patrolType = null;
    } else {
      const type = await repos.patrolTypes.find(tenantId, input.patrolType);
      if (!type) fail('patrol_type', 'unknown_patrol_type', `No patrol type "${input.patrolType}".`, 'Use the value of a type from /api/v1.0/activity/patrols/types.');
      else if (!type.isActive && type.id !== current?.patrolTypeId) fail('patrol_type', 'inactive_patrol_type', `The patrol type "${input.patrolType}" is deactivated.`, 'Choose an active patrol type.');
      else {
        next.patrolTypeId = type.id;
        applied.patrolType = type;
      }
    }
  }
  if (input.leader !== undefined) {
    if (input.leader === null) {
      next.leaderType = null;
      next.leaderId = null;
      applied.leader = null;
    } else {
      const [subject] = input.leader.type === 'observations.subject' ? await repos.subjects.findMany(tenantId, [input.leader.id]) : [];
      const [user] = input.leader.type === 'accounts.user' ? await repos.users.findManyInTenant(tenantId, [input.leader.id]) : [];
      if (subject) applied.leader = { type: 'observations.subject', subject };
      else if (user) applied.leader = { type: 'accounts.user', user };
      if (!subject && !user) fail('leader', 'unknown_leader', 'No such leader in this tenant.', 'Pick a leader from /api/v1.0/activity/patrols/trackedby.');
      else {
        next.leaderType = input.leader.type;
        next.leaderId = input.leader.id;
      }
    }
  }
  for (const key of ['scheduledStart', 'scheduledEnd', 'startTime', 'endTime', 'startLocation', 'endLocation'] as const) {
    if (input[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = input[key];
  }
  if (next.scheduledStart !== null && next.scheduledEnd !== null && next.scheduledStart >= next.scheduledEnd) {
    fail('scheduled_end', 'invalid_range', 'scheduled_end must be after scheduled_start.', 'Swap or correct the times.');
  }
  if (next.startTime !== null && next.endTime !== null && next.startTime >= next.endTime) {
    fail('time_range', 'invalid_range', 'time_range.end_time must be after time_range.start_time.', 'Swap or correct the times.');
  }
  if (Object.keys(errors).length > 0) throw new InputError('The patrol segment is not valid.', errors);
  return { ...applied, segment: next };
}
