import { ConfigError } from '../server/config.js';
import { DomainError, InputError } from '../server/domain/errors.js';

/** A failure the user can fix: printed as a message and a hint, never as a stack. */
export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Exit codes, documented in `--help` and the README. */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

export interface ReportOptions {
  /** `--debug` or LOG_LEVEL=debug: also print the stack behind an expected failure. */
  debug?: boolean;
}

/** Prints an error the way a user should see it; returns the exit code. */
export function reportError(error: unknown, stderr: NodeJS.WritableStream, options: ReportOptions = {}): number {
  const debugStack = () => {
    if (!options.debug) return;
    const cause = (error as Error).cause ?? error;
    stderr.write(`debug: ${(cause as Error)?.stack ?? String(cause)}\n`);
  };
  if (error instanceof UserFacingError || error instanceof ConfigError) {
    stderr.write(`error: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
    debugStack();
    return error instanceof UserFacingError ? error.exitCode : EXIT.failure;
  }
  if (error instanceof InputError) {
    stderr.write(`error: ${error.message}\n`);
    const hints: string[] = [];
    for (const [field, issues] of Object.entries(error.fields)) {
      for (const issue of issues) {
        // A one-field error whose message is the error's own (e.g. a duplicate name) is said once.
        if (issue.message === error.message) hints.push(...issue.hints);
        else stderr.write(`  ${field}: ${issue.message}${issue.hints.length ? ` (${issue.hints.join(' ')})` : ''}\n`);
      }
    }
    if (hints.length) stderr.write(`hint: ${hints.join(' ')}\n`);
    debugStack();
    return EXIT.failure;
  }
  if (error instanceof DomainError) {
    stderr.write(`error: ${error.message}\n`);
    debugStack();
    return EXIT.failure;
  }
  stderr.write(`fieldops: unexpected error (a bug; please report it)\n${(error as Error)?.stack ?? String(error)}\n`);
  return EXIT.failure;
}

/** Ends a command with an exit code once it has printed its own report (e.g. lint found errors). */
export class CommandExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}
