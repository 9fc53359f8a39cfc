/** The smallest gap between neighbours before the catalog is renumbered 1..N. */
export const MIN_GAP = 1e-4;

export interface Ranked {
  id: string;
  ordernum: number | null;
}

export interface RankPlan {
  /** New ordernum of the moved item. */
  ordernum: number;
  /** Siblings renumbered first (ordernum only; their updated_at stays). */
  renumbered: Array<{ id: string; ordernum: number }>;
}

/**
 * Where an item goes when it moves before `beforeId` (or to the front when null): the
 * midpoint of its new neighbours. When a neighbour has no ordernum, or the gap is below
 * MIN_GAP, every other item is renumbered 1..N in its current order first.
 * `ordered` is the catalog in display order, the moved item included.
 */
export function planRank(ordered: readonly Ranked[], movedId: string, beforeId: string | null): RankPlan {
  let others = ordered.filter((item) => item.id !== movedId);
  const renumbered: Array<{ id: string; ordernum: number }> = [];
  const place = () => {
    const index = beforeId === null ? 0 : others.findIndex((item) => item.id === beforeId);
    if (index < 0) throw new Error(`before item ${beforeId} is not in the catalog`);
    const previous = index > 0 ? others[index - 1]!.ordernum : null;
    const next = others[index]?.ordernum ?? null;
    if (others.length === 0) return { ok: true as const, ordernum: 1 };
    if (next === null || (index > 0 && previous === null)) return { ok: false as const };
    if (index === 0) return { ok: true as const, ordernum: next - 1 };
    if (next - previous! < MIN_GAP) return { ok: false as const };
    return { ok: true as const, ordernum: (previous! + next) / 2 };
  };
  let placed = place();
  if (!placed.ok) {
    others = others.map((item, position) => ({ id: item.id, ordernum: position + 1 }));
    for (const item of others) {
      const before = ordered.find((candidate) => candidate.id === item.id)!;
      if (before.ordernum !== item.ordernum) renumbered.push({ id: item.id, ordernum: item.ordernum! });
    }
    placed = place();
    if (!placed.ok) throw new Error('rank placement failed after renumbering');
  }
  return { ordernum: placed.ordernum, renumbered };
}
