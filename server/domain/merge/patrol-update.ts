/**
 * What a patrol update (nested segments included) or a standalone segment update writes once
 * merged (issue 26 §3). Runs inside the write's transaction, under the tenant's patrols lock:
 * the history read here is the whole of it. A blind update (no base) writes what it sent.
 */
import { SEGMENTS_PREFIX } from '../../../protocol/merge-fields.js';
import type { WritePrecondition } from '../client-input.js';
import { InputError } from '../errors.js';
import type { Repositories } from '../ports.js';
import type { PatrolInput, SegmentInput } from '../patrols/input.js';
import type { Patrol, PatrolSegment } from '../patrols/model.js';
import { applySegmentInput } from '../patrols/segments.js';
import { applyPatrolFields, applySegmentFields, flattenPatrol, invalidSegmentRange, patrolMine, segmentMine } from './fields-patrol.js';
import { type MergePlan, planMerge } from './record-merge.js';
import { holdPaths } from './three-way.js';

/** The segments an update writes: existing ones (`created: false`) and new ones. */
export interface SegmentWrite {
  segment: PatrolSegment;
  created: boolean;
}

export interface PatrolWritePlan {
  plan: MergePlan;
  /** The patrol's own fields after the merge (revision and times are the caller's). */
  patrol: Patrol;
  segments: SegmentWrite[];
  /** The fields before the write (for the history row). */
  before: Map<string, unknown>;
}

/**
 * Applies the segment inputs (types and leaders resolved: 400 for unknown ones), merges the
 * named fields of existing segments and of the patrol itself, and answers what to write.
 */
export async function planPatrolWrite(
  repos: Repositories,
  current: Patrol,
  segments: readonly PatrolSegment[],
  input: Pick<PatrolInput, 'title' | 'objective' | 'priority' | 'state'>,
  segmentInputs: readonly SegmentInput[],
  pre: WritePrecondition,
  now: number,
  options: { nested: boolean } = { nested: true },
): Promise<PatrolWritePlan> {
  const { tenantId } = current;
  const before = flattenPatrol(current, segments);
  const existing = new Map(segments.map((segment) => [segment.id, segment]));
  const proposed = new Map<string, SegmentWrite>();
  const mine = patrolMine(input, { ...current, ...definedPatrolFields(input) });
  for (const [index, segmentInput] of segmentInputs.entries()) {
    const field = options.nested ? `patrol_segments[${index}]` : '';
    const id = segmentInput.id;
    const found = id ? (proposed.get(id)?.segment ?? existing.get(id) ?? (await repos.patrols.findSegment(tenantId, id))) : null;
    if (found && found.patrolId !== current.id) throw InputError.field(`${field || 'id'}`, 'other_patrol', 'That segment belongs to another patrol.', ['Leave the id out to create a new segment.']);
    const { segment } = await applySegmentInput(repos, tenantId, current.id, found, segmentInput, now, field);
    const created = !existing.has(segment.id);
    proposed.set(segment.id, { segment, created });
    if (!created) for (const [path, value] of segmentMine(segmentInput, segment)) mine.set(path, value);
  }
  let plan = await planMerge(repos, { kind: 'patrol', tenantId, id: current.id, revision: current.revision, current: before, mine, pre });
  if (plan.base === null || plan.result.status === 'replayed') {
    return { plan, patrol: { ...current, ...definedPatrolFields(input) }, segments: [...proposed.values()], before };
  }
  const written: SegmentWrite[] = [];
  for (const write of proposed.values()) {
    if (write.created) {
      written.push(write);
      continue;
    }
    const original = existing.get(write.segment.id)!;
    let merged = applySegmentFields({ ...original, updatedAt: now }, plan.result.apply);
    if (invalidSegmentRange(merged)) {
      // The merged times would be out of order: this segment's changes are held as conflicts.
      const prefix = `${SEGMENTS_PREFIX}${original.id}.`;
      plan = { ...plan, result: holdPaths(plan.result, [...plan.result.apply.keys()].filter((path) => path.startsWith(prefix)), before) };
      merged = applySegmentFields({ ...original, updatedAt: now }, plan.result.apply);
    }
    written.push({ segment: merged, created: false });
  }
  return { plan, patrol: applyPatrolFields(current, plan.result.apply), segments: written, before };
}

function definedPatrolFields(input: Pick<PatrolInput, 'title' | 'objective' | 'priority' | 'state'>): Partial<Patrol> {
  const fields: Partial<Patrol> = {};
  if (input.title !== undefined) fields.title = input.title;
  if (input.objective !== undefined) fields.objective = input.objective;
  if (input.priority !== undefined) fields.priority = input.priority;
  if (input.state !== undefined) fields.state = input.state;
  return fields;
}
