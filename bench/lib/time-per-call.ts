/**
 * Milliseconds per call of `work`: one warm-up call, then repeated until `windowMs` have passed
 * (a single call when it is slower than that).
 */
export function timePerCall(work: () => unknown, windowMs: number): number {
  work();
  let runs = 0;
  const start = performance.now();
  do {
    work();
    runs++;
  } while (performance.now() - start < windowMs);
  return (performance.now() - start) / runs;
}
