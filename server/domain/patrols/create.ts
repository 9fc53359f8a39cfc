import { randomUUID } from 'node:crypto';
import { type RequestContext, actingUser } from '../context.js';
import { InputError } from '../errors.js';
import type { Repositories } from '../ports.js';
import type { PatrolInput } from './input.js';
import type { Patrol, PatrolNote, PatrolUpdate, PatrolView, SegmentView } from './model.js';
import type { NewPatrol } from './ports.js';
import { applySegmentInput } from './segments.js';
import { automaticState, patrolWindow } from './window.js';

/** One entry of a patrol's updates, by the caller (or by the system when ctx is null). */
export function patrolUpdate(ctx: RequestContext | null, patrol: Patrol, type: string, message: string, now: number): PatrolUpdate {
  const user = ctx?.principal ? actingUser(ctx.principal) : null;
  return { id: randomUUID(), tenantId: patrol.tenantId, patrolId: patrol.id, type, message, userId: user?.id ?? null, username: user?.username ?? (ctx ? null : 'system'), time: now };
}

const byCreatedThenId = <T extends { createdAt: number; id: string }>(a: T, b: T) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A create, decided in memory before anything is written: the patrol, its segments (types and
 * leaders resolved: 400 for unknown ones), notes, and updates ("Patrol Added", and the automatic
 * state change its segments imply), with the view the caller gets back, in the order reads give
 * (so nothing needs reading back). Only reads happen here; `repos.patrols.createPatrol` writes.
 */
export async function draftNewPatrol(repos: Repositories, ctx: RequestContext, tenantId: string, id: string, input: PatrolInput, now: number): Promise<{ write: NewPatrol; view: PatrolView }> {
  const created: Patrol = {
    id, tenantId, serialNumber: 0, title: input.title ?? null, objective: input.objective ?? null, priority: input.priority ?? 0,
    state: input.state ?? 'open', window: patrolWindow([]), createdByUserId: actingUser(ctx.principal!)?.id ?? null, createdAt: now, updatedAt: now, revision: 1,
  };
  const views = new Map<string, SegmentView>();
  for (const [index, segmentInput] of (input.segments ?? []).entries()) {
    const field = `patrol_segments[${index}]`;
    // A segment id named twice in one body: the later entry updates the earlier one.
    const earlier = segmentInput.id ? views.get(segmentInput.id) : undefined;
    if (!earlier && segmentInput.id && (await repos.patrols.findSegment(tenantId, segmentInput.id))) {
      throw InputError.field(field, 'other_patrol', 'That segment belongs to another patrol.', ['Leave the id out to create a new segment.']);
    }
    const applied = await applySegmentInput(repos, tenantId, id, earlier?.segment ?? null, segmentInput, now, field);
    views.set(applied.segment.id, {
      segment: applied.segment,
      patrolType: applied.patrolType !== undefined ? applied.patrolType : (earlier?.patrolType ?? null),
      leader: applied.leader !== undefined ? applied.leader : (earlier?.leader ?? null),
      eventIds: [],
    });
  }
  const segmentViews = [...views.values()].sort((a, b) => byCreatedThenId(a.segment, b.segment));
  const segments = segmentViews.map((view) => view.segment);
  const window = patrolWindow(segments);
  const patrol: Patrol = { ...created, window, state: automaticState(created, window, now, false) };
  const updates = [patrolUpdate(ctx, created, 'add_patrol', 'Patrol Added', now)];
  if (patrol.state !== created.state) updates.push(patrolUpdate(ctx, patrol, 'update_patrol_state', `Patrol state changed to ${patrol.state} automatically`, now));
  const user = ctx.principal ? actingUser(ctx.principal) : null;
  const notes: PatrolNote[] = (input.notes ?? []).map((note) => ({
    id: note.id ?? randomUUID(), tenantId, patrolId: id, text: note.text, createdByUserId: user?.id ?? null, createdByUsername: user?.username ?? null, createdAt: now, updatedAt: now,
  }));
  notes.sort(byCreatedThenId);
  updates.sort((a, b) => b.time - a.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { write: { patrol, segments, notes, updates }, view: { patrol, segments: segmentViews, notes, files: [], updates } };
}
