import type { RevisionEntry } from '../model.js';

/**
 * Issue 28: an item's tracked fields as they stood at history `sequence`, from its history
 * entries in ascending sequence order (the first is the `created` snapshot; each later one
 * carries the fields it changed). Keys are the history's API names (`schema` holds the parsed
 * `{json, ui}` envelope). Null when no entry at or before `sequence` exists.
 */
export function foldRevisions(entries: readonly RevisionEntry[], sequence: number): Record<string, unknown> | null {
  let state: Record<string, unknown> | null = null;
  for (const entry of entries) {
    if (entry.sequence > sequence) break;
    if (entry.snapshot) state = { ...entry.snapshot };
    else if (entry.updatedFields) state = { ...(state ?? {}), ...entry.updatedFields };
  }
  return state;
}
