import { ConfigError } from '../server/config.js';
import { DomainError, InputError } from '../server/domain/errors.js';

/** A failure the user can fix: printed as a message and a hint, never as a stack. */
export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Exit codes, documented in `--help` and the README. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Prints an error the way a user should see it; returns the exit code. */
export function reportError(error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof UserFacingError) {
    stderr.write(`error: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
    return error.exitCode;
  }
  if (error instanceof InputError) {
    stderr.write(`error: ${error.message}\n`);
    for (const [field, issues] of Object.entries(error.fields)) {
      for (const issue of issues) stderr.write(`  ${field}: ${issue.message}${issue.hints.length ? ` (${issue.hints.join(' ')})` : ''}\n`);
    }
    return EXIT.failure;
  }
  if (error instanceof DomainError || error instanceof ConfigError) {
    stderr.write(`error: ${error.message}\n`);
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
