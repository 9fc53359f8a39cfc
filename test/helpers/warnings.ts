/**
 * Process warnings fail the suite (issue 14): a deprecation, an unhandled-rejection notice or a
 * listener leak today is a bug tomorrow. `fail-on-warning.js` is loaded into every test process
 * (.taprc `node-arg`); the helpers that spawn `fieldops` hand the children's stderr to
 * `noteChildOutput`, so a warning printed by a server or CLI child fails the file too.
 */
const seen: string[] = [];

/** Node prints warnings as `(node:1234) [DEP0123] DeprecationWarning: ...` (code optional). */
const CHILD_WARNING = /^\(node:\d+\) (?:\[[A-Z0-9_]+\] )?\w*Warning: .*$/gm;

export function noteWarning(text: string): void {
  seen.push(text);
}

/** The warning lines in a child process's output. */
export function childWarningLines(output: string): string[] {
  return output.match(CHILD_WARNING) ?? [];
}

/** Records every warning line in a child process's stderr. */
export function noteChildOutput(stderr: string, what = 'a child process'): void {
  for (const line of childWarningLines(stderr)) seen.push(`${what}: ${line}`);
}

export function warningsSeen(): readonly string[] {
  return seen;
}
