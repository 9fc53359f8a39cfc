/**
 * Likely renames: among the fields removed from, and added to, the same parent, a pair is a
 * candidate when the two have the same (non-empty) title, or the same kind at the same layout
 * position (the same section, column and row). Fields not placed in the layout have no position:
 * the order of `properties` keys is not part of the form, so it never decides a rename. Two
 * different non-empty titles veto a pair found by position (an editor who retitles a field in
 * place reads as a new field). Candidates are scored and paired greedily, best first, ties broken
 * by pointer. Candidates are found through hash buckets (title, slot), each keeping the first
 * `MAX_BUCKET_CANDIDATES` by pointer (never by document order): linear, never all pairs, and the
 * answer does not depend on key order.
 */
import type { DiffField } from './fields.js';

export interface RenamePair {
  before: DiffField;
  after: DiffField;
  score: number;
  reason: string;
}

/** A field's position in the form, comparable across revisions (`ui:<section>/<column>/<row>`), or '' when it has none. */
export type SlotOf = (field: DiffField) => string;

const MAX_BUCKET_CANDIDATES = 8;
const normTitle = (title: string | undefined): string => (title ?? '').trim().toLowerCase().replace(/\s+/g, ' ');

export function likelyRenames(removed: readonly DiffField[], added: readonly DiffField[], slotBefore: SlotOf, slotAfter: SlotOf): RenamePair[] {
  if (removed.length === 0 || added.length === 0) return [];
  const byTitle = new Map<string, DiffField[]>();
  const bySlot = new Map<string, DiffField[]>();
  const push = (map: Map<string, DiffField[]>, key: string, field: DiffField): void => {
    const list = map.get(key) ?? [];
    if (list.length < MAX_BUCKET_CANDIDATES) list.push(field);
    map.set(key, list);
  };
  for (const field of [...added].sort((x, y) => compare(x.pointer, y.pointer))) {
    const title = normTitle(field.title);
    if (title) push(byTitle, title, field);
    const slot = slotAfter(field);
    if (slot) push(bySlot, `${field.kind} ${slot}`, field);
  }
  const candidates: RenamePair[] = [];
  for (const old of removed) {
    const title = normTitle(old.title);
    const slot = slotBefore(old);
    const seen = new Set<DiffField>();
    for (const field of [...(title ? byTitle.get(title) ?? [] : []), ...(slot ? bySlot.get(`${old.kind} ${slot}`) ?? [] : [])]) {
      if (seen.has(field)) continue;
      seen.add(field);
      const otherTitle = normTitle(field.title);
      if (title && otherTitle && title !== otherTitle) continue;
      candidates.push(scorePair(old, field, slot !== '' && slot === slotAfter(field)));
    }
  }
  candidates.sort((a, b) => b.score - a.score || compare(a.before.pointer, b.before.pointer) || compare(a.after.pointer, b.after.pointer));
  const usedBefore = new Set<DiffField>();
  const usedAfter = new Set<DiffField>();
  const pairs: RenamePair[] = [];
  for (const pair of candidates) {
    if (usedBefore.has(pair.before) || usedAfter.has(pair.after)) continue;
    usedBefore.add(pair.before);
    usedAfter.add(pair.after);
    pairs.push(pair);
  }
  return pairs;
}

function scorePair(before: DiffField, after: DiffField, sameSlot: boolean): RenamePair {
  const sameTitle = normTitle(before.title) !== '' && normTitle(before.title) === normTitle(after.title);
  const sameKind = before.kind === after.kind;
  const score = (sameTitle ? 4 : 0) + (sameSlot ? 2 : 0) + (sameKind ? 2 : 0) + (before.type === after.type ? 1 : 0) + (before.required === after.required ? 1 : 0);
  const reasons = [sameTitle ? `same title "${after.title ?? ''}"` : '', sameKind && sameSlot ? `same kind (${after.kind}) at the same position` : ''].filter(Boolean);
  return { before, after, score, reason: reasons.join(', ') };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
