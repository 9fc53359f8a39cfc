/**
 * When to send each line. The recorded spacing is kept, divided by `speed`, measured from the
 * first line sent (so delays do not accumulate drift); `maxRate` caps sends per second. With
 * only `maxRate`, timestamps are ignored and lines go out at that rate.
 */
export interface PacingOptions {
  speed?: number;
  maxRate?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Ends a pending wait at once (Ctrl-C during a long recorded gap). */
  signal?: AbortSignal;
}

export interface Pacer {
  /** Resolves when the line recorded at `at` (epoch ms) is due. */
  wait(at: number): Promise<void>;
}

export function createPacer(options: PacingOptions): Pacer {
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ??
    ((ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        options.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      }));
  const followTimes = options.speed !== undefined || options.maxRate === undefined;
  const speed = options.speed ?? 1;
  const interval = options.maxRate ? 1000 / options.maxRate : 0;
  let origin: { wall: number; at: number } | null = null;
  let last: number | null = null;
  return {
    async wait(at) {
      const wall = now();
      origin ??= { wall, at };
      let due = followTimes ? origin.wall + Math.max(0, at - origin.at) / speed : wall;
      if (last !== null) due = Math.max(due, last + interval);
      if (due > wall) await sleep(due - wall);
      last = Math.max(due, wall);
    },
  };
}
