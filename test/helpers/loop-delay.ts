/**
 * Event-loop delay around a piece of work: the longest the loop was held while it ran, as
 * `perf_hooks.monitorEventLoopDelay` saw it. Tests assert a generous bound on this (work that
 * takes milliseconds against a bound of seconds), never a wall-clock time: what the review
 * found blocked the loop for 17 to 47 seconds.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** Generous: bounded work takes milliseconds (a 1 MB document of mistakes about 0.5 s on a busy machine); the defects took 17-47 s. */
export const LOOP_DELAY_BOUND_MS = 3000;

export async function withLoopDelay<T>(work: () => T | Promise<T>): Promise<{ result: T; maxDelayMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await sleep(15);
  try {
    const result = await work();
    // Let the monitor's timer fire once after the work, so a block at the very end is counted.
    await sleep(25);
    return { result, maxDelayMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}
