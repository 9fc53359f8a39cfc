/**
 * What an event update writes once merged (issue 26 §3), decided outside the write transaction
 * (the details check reads the database) and written under a compare-and-set on the revision:
 * the event as the update alone would leave it (`proposeEvent`), then with only the paths the
 * merge chose, and with the changed detail keys held as conflicts when the merged details would
 * fail the type's schema.
 */
import type { WritePrecondition } from '../client-input.js';
import { InputError } from '../errors.js';
import type { EventInput } from '../events/input.js';
import type { EventRecord } from '../events/model.js';
import type { ResolvedEventType } from '../events/details.js';
import type { ActivityEvent } from '../model.js';
import type { Repositories } from '../ports.js';
import { eventMine, flattenEvent, isDetailPath, mergedEvent } from './fields-event.js';
import { type MergePlan, planMerge } from './record-merge.js';
import { holdPaths } from './three-way.js';

/** `event` with the update applied as a blind write would (every field sent replaces the stored one). */
export function proposeEvent(event: ActivityEvent, input: EventInput): ActivityEvent {
  const next: ActivityEvent = { ...event };
  if (input.title !== undefined) next.title = input.title;
  if (input.time !== undefined) next.time = input.time;
  if (input.priority !== undefined) next.priority = input.priority;
  if (input.state !== undefined) next.state = input.state;
  if (input.eventType !== undefined) next.eventType = input.eventType;
  if (input.eventDetails !== undefined) next.eventDetails = input.eventDetails;
  if (input.location !== undefined) {
    next.latitude = input.location?.latitude ?? null;
    next.longitude = input.location?.longitude ?? null;
  }
  return next;
}

const detailsDiffer = (a: ActivityEvent, b: ActivityEvent) => a.eventType !== b.eventType || JSON.stringify(a.eventDetails) !== JSON.stringify(b.eventDetails);

export interface MergedEventUpdate {
  plan: MergePlan;
  /** The event to write (from `current`). */
  target: ActivityEvent;
  /** The type the target's details were checked against; null when type and details are unchanged. */
  type: ResolvedEventType | null;
}

/**
 * The merge of an update with a base against `current` (read through `repos` outside the write
 * transaction: the caller writes only if the revision is still `current.revision`).
 */
export async function mergeEventUpdate(
  repos: Repositories,
  current: EventRecord,
  input: EventInput,
  pre: WritePrecondition,
  check: (eventType: string, details: Record<string, unknown>) => Promise<ResolvedEventType>,
): Promise<MergedEventUpdate> {
  const proposed = proposeEvent(current, input);
  const fields = flattenEvent(current);
  let plan = await planMerge(repos, { kind: 'event', tenantId: current.tenantId, id: current.id, revision: current.revision, current: fields, mine: eventMine(input, current, proposed), pre });
  let target = mergedEvent(current, proposed, plan.result.apply);
  if (plan.result.status === 'replayed' || !detailsDiffer(current, target)) return { plan, target, type: null };
  try {
    return { plan, target, type: await check(target.eventType, target.eventDetails) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    // The merged details fail the type's schema: the update's detail keys (and its type) are
    // held as conflicts, the rest applies.
    const held = [...plan.result.apply.keys()].filter((path) => isDetailPath(path) || path === 'event_type');
    if (held.length === 0) throw error;
    plan = { ...plan, result: holdPaths(plan.result, held, fields) };
    target = mergedEvent(current, proposed, plan.result.apply);
    return { plan, target, type: detailsDiffer(current, target) ? await check(target.eventType, target.eventDetails) : null };
  }
}
