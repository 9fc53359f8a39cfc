/**
 * Crash points for the kill tests (issue 26: kill -9 of the server at every step of a batch and
 * of an upload). `crashPoint(name)` kills this process with SIGKILL, as a power cut would, when
 * `FIELDOPS_CRASH_POINTS` names it (comma-separated `name` or `name@n`: the n-th time it is
 * reached, default the first). Unset, it costs one Set lookup. Never set in production: the
 * variable is read once, at start.
 */
const armed = parse(process.env.FIELDOPS_CRASH_POINTS);
const reached = new Map<string, number>();

function parse(value: string | undefined): Map<string, number> {
  const points = new Map<string, number>();
  for (const item of (value ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const [name, nth] = item.split('@');
    points.set(name!, Math.max(1, Number(nth ?? 1) || 1));
  }
  return points;
}

export function crashPoint(name: string): void {
  const nth = armed.get(name);
  if (nth === undefined) return;
  const count = (reached.get(name) ?? 0) + 1;
  reached.set(name, count);
  if (count === nth) {
    process.stderr.write(`crash point ${name} (#${count}): killing the process\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}
