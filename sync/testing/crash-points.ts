/**
 * Crash points for the kill tests (issue 26: kill -9 of the CLI and of the server at every step
 * of a batch and of an upload). A crash point kills its process with SIGKILL, as a power cut
 * would, when the environment variable that arms it names it (comma-separated `name` or
 * `name@n`: the n-th time it is reached, default the first). Unarmed, it costs one Map lookup.
 * Never set in production: the variable is read once, at start. The CLI's points are armed by
 * FIELDOPS_CLI_CRASH_POINTS; the server's (server/testing/crash-points.ts) by FIELDOPS_CRASH_POINTS.
 */
export function crashPointsArmedBy(variable: string): (name: string) => void {
  const armed = parse(process.env[variable]);
  const reached = new Map<string, number>();
  return (name) => {
    const nth = armed.get(name);
    if (nth === undefined) return;
    const count = (reached.get(name) ?? 0) + 1;
    reached.set(name, count);
    if (count === nth) {
      process.stderr.write(`crash point ${name} (#${count}): killing the process\n`);
      process.kill(process.pid, 'SIGKILL');
    }
  };
}

function parse(value: string | undefined): Map<string, number> {
  const points = new Map<string, number>();
  for (const item of (value ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const [name, nth] = item.split('@');
    points.set(name!, Math.max(1, Number(nth ?? 1) || 1));
  }
  return points;
}

/** The CLI's crash points (FIELDOPS_CLI_CRASH_POINTS). */
export const crashPoint = crashPointsArmedBy('FIELDOPS_CLI_CRASH_POINTS');
