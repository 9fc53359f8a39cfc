/**
 * The field-level three-way merge (issue 26 §3; docs/design/offline-writes-plan.md §3). Pure:
 * no I/O, no clock; the services give it the record's current fields, the history rows since
 * the update's base, the update's own fields and the tenant's policy.
 *
 * - The **base value** of a path is the predecessor entry's value when the update follows an
 *   entry that lost the path to a conflict (`chainLost`: the laptop never saw the value the
 *   server kept), else the `before` of the earliest history row after the base that changed
 *   it, else the current value.
 * - **theirs** are the paths whose current value differs from their base value.
 * - Each path of **mine**: equal to the current value → nothing to do; not in theirs → applied;
 *   mine equals the base value → an echo, theirs stands; otherwise a **conflict**, settled by
 *   the policy: `hold` keeps theirs (open), `server_wins` keeps theirs (settled),
 *   `last_writer_wins` applies mine (settled). Every conflict keeps base, mine and theirs.
 * - **merged** are the paths of theirs that mine does not name, or names with its base value.
 * - A history row carrying this update's entry key means it was applied already: `replayed`.
 */
import { sameValue } from '../../../protocol/merge-fields.js';
import type { ConflictPolicy } from '../../../protocol/push.js';

export type FieldValues = ReadonlyMap<string, unknown>;

/** One history row as the merge reads it: `{path: [before, after]}`. */
export interface HistoryStep {
  revision: number;
  fields: Readonly<Record<string, readonly [unknown, unknown]>>;
  entryKey: string | null;
}

export interface MergeRequest {
  /** The record's fields now (a path not in the map is null). */
  current: FieldValues;
  /** The history rows after the base revision, up to the current one (any order). */
  history: readonly HistoryStep[];
  /** The paths the update names, with the values it sends. */
  mine: FieldValues;
  policy: ConflictPolicy;
  entryKey?: string | null;
  /** The predecessor entry's values of the paths it lost to conflicts. */
  chainLost?: Readonly<Record<string, unknown>>;
}

export interface MergeConflict {
  field: string;
  base: unknown;
  mine: unknown;
  theirs: unknown;
  status: 'open' | 'settled';
  settledBy?: 'policy';
  /** Whether mine was written (last_writer_wins); otherwise theirs stands. */
  applied: boolean;
  /** The latest revision after the base that changed the path (null: only the chain lost it). */
  theirsRevision: number | null;
}

export interface MergeResult {
  status: 'applied' | 'merged' | 'conflict' | 'replayed';
  /** Mine's values to write (paths whose current value differs). */
  apply: Map<string, unknown>;
  /** Paths changed since the base that the update does not name (kept). */
  merged: string[];
  conflicts: MergeConflict[];
  /** The base value of each path of mine. */
  base: Map<string, unknown>;
}

const valueOf = (values: FieldValues, path: string): unknown => (values.has(path) ? values.get(path) : null);

export function threeWayMerge(request: MergeRequest): MergeResult {
  const { current, mine, policy } = request;
  const history = [...request.history].sort((a, b) => a.revision - b.revision);
  if (request.entryKey && history.some((step) => step.entryKey === request.entryKey)) {
    return { status: 'replayed', apply: new Map(), merged: [], conflicts: [], base: new Map() };
  }
  const earliest = new Map<string, unknown>();
  const lastChange = new Map<string, number>();
  for (const step of history) {
    for (const [path, [before]] of Object.entries(step.fields)) {
      if (!earliest.has(path)) earliest.set(path, before);
      lastChange.set(path, step.revision);
    }
  }
  const chainLost = request.chainLost ?? {};
  const baseOf = (path: string): unknown => (Object.hasOwn(chainLost, path) ? chainLost[path] : earliest.has(path) ? earliest.get(path) : valueOf(current, path));
  const theirs = new Set<string>();
  for (const path of new Set([...earliest.keys(), ...Object.keys(chainLost)])) {
    if (!sameValue(baseOf(path), valueOf(current, path))) theirs.add(path);
  }

  const apply = new Map<string, unknown>();
  const base = new Map<string, unknown>();
  const conflicts: MergeConflict[] = [];
  const echoes = new Set<string>();
  for (const [path, value] of mine) {
    const now = valueOf(current, path);
    base.set(path, baseOf(path));
    if (sameValue(value, now)) continue;
    if (!theirs.has(path)) {
      apply.set(path, value);
      continue;
    }
    if (sameValue(value, baseOf(path))) {
      echoes.add(path); // an echo of the base (a PUT of what was read): theirs stands
      continue;
    }
    const applied = policy === 'last_writer_wins';
    if (applied) apply.set(path, value);
    conflicts.push({
      field: path, base: baseOf(path), mine: value, theirs: now, applied,
      status: policy === 'hold' ? 'open' : 'settled', ...(policy === 'hold' ? {} : { settledBy: 'policy' as const }),
      theirsRevision: lastChange.get(path) ?? null,
    });
  }
  const merged = [...theirs].filter((path) => !mine.has(path) || echoes.has(path)).sort();
  return { status: statusOf(merged, conflicts), apply, merged, conflicts, base };
}

/**
 * Holds `paths` of a result as open conflicts (theirs stands): what an update's changes become
 * when the merged record would be invalid (event details its type's schema refuses, a segment
 * ending before it starts). Paths not being written are left as they are.
 */
export function holdPaths(result: MergeResult, paths: Iterable<string>, current: FieldValues): MergeResult {
  const apply = new Map(result.apply);
  const conflicts = [...result.conflicts];
  for (const path of paths) {
    if (!apply.has(path)) continue;
    const mine = apply.get(path);
    apply.delete(path);
    const existing = conflicts.findIndex((conflict) => conflict.field === path);
    if (existing >= 0) {
      const { settledBy: _settled, ...rest } = conflicts[existing]!;
      conflicts[existing] = { ...rest, status: 'open', applied: false };
    } else {
      conflicts.push({ field: path, base: result.base.get(path) ?? null, mine, theirs: valueOf(current, path), status: 'open', applied: false, theirsRevision: null });
    }
  }
  return { ...result, apply, conflicts, status: result.status === 'replayed' ? 'replayed' : statusOf(result.merged, conflicts) };
}

function statusOf(merged: readonly string[], conflicts: readonly MergeConflict[]): MergeResult['status'] {
  return conflicts.length > 0 ? 'conflict' : merged.length > 0 ? 'merged' : 'applied';
}
