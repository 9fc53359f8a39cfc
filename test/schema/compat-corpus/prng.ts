/** A seeded PRNG (mulberry32) and the draws the corpus generator and mutations use: deterministic runs. */
export interface Rng {
  next(): number;
  int(lo: number, hi: number): number;
  pick<T>(list: readonly T[]): T;
  /** Skewed towards the front of the list: some values common, some rare. */
  skewed<T>(list: readonly T[]): T;
  chance(p: number): boolean;
  shuffle<T>(list: T[]): T[];
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next, int,
    pick: (list) => list[int(0, list.length - 1)]!,
    skewed: (list) => list[Math.floor(next() * next() * list.length)]!,
    chance: (p) => next() < p,
    shuffle: (list) => {
      for (let i = list.length - 1; i > 0; i--) { const j = int(0, i); [list[i], list[j]] = [list[j]!, list[i]!]; }
      return list;
    },
  };
}
