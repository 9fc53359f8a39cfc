/** What the fieldops client commands share: common options and one action wrapper. */
import { InvalidArgumentError, type Command } from 'commander';
import { ClientFailure } from '../../sync/errors.js';
import { TransportError } from '../../sync/http.js';
import { commandContext, type CommandContext, type CommonOptions } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';

export function withCommonOptions(command: Command, options: { json?: boolean } = {}): Command {
  command.option('--profile <name>', 'named profile (env FIELDOPS_PROFILE; default "default")');
  if (options.json !== false) command.option('--json', 'machine-readable JSON on stdout');
  return command;
}

/** Maps expected client failures to the CLI's user-facing errors; bugs pass through with their stack. */
export function translateError(error: unknown): unknown {
  if (error instanceof ClientFailure) return new UserFacingError(error.message, error.hint, error.kind === 'usage' ? 2 : 1, { cause: error.cause ?? error });
  if (error instanceof TransportError) {
    return new UserFacingError(`cannot reach ${safeOrigin(error.url)}: ${error.message}`, error.hint ?? 'check the network and the server URL (`fieldops status` shows it)', 1, { cause: error });
  }
  return error;
}

const safeOrigin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/**
 * A commander action: builds the command context from the common options, runs `work` with the
 * positional arguments, and translates expected failures.
 */
export function clientAction<O extends CommonOptions>(io: CliIo, work: (ctx: CommandContext, options: O, args: string[]) => Promise<void>) {
  return async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const options = command.opts<O>();
    const args = received.slice(0, -2).flatMap((value) => (Array.isArray(value) ? value : value === undefined ? [] : [String(value)]));
    const ctx = commandContext(io, options);
    try {
      await work(ctx, options, args);
    } catch (error) {
      throw translateError(error);
    } finally {
      ctx.status.clear();
    }
  };
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function positiveNumber(name: string) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new InvalidArgumentError(`${name} must be a positive number.`);
    return value;
  };
}

export function positiveInteger(name: string) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`${name} must be a positive integer.`);
    return value;
  };
}
