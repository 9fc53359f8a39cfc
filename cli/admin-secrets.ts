/**
 * Secrets for the admin commands (passwords, client secrets). On the command line they show in
 * `ps` and shell history, so they can also come from standard input (`--password-stdin`,
 * `--secret-stdin`) or, on a terminal, a prompt without echo.
 */
import { UserFacingError } from './errors.js';
import { prompt, readAllStdin, stdinIsTty } from './prompt.js';

export interface SecretSource {
  /** The value given on the command line, if any. */
  value?: string;
  /** The `--...-stdin` flag was given. */
  fromStdin?: boolean;
  /** e.g. `--password`: named in messages. */
  flag: string;
  /** Prompt on a terminal when neither is given (with a confirmation); otherwise the secret is optional. */
  promptAs?: string;
}

export async function readSecret(source: SecretSource, io: { stderr: NodeJS.WritableStream; warn(text: string): void }): Promise<string | undefined> {
  if (source.value !== undefined && source.fromStdin) throw new UserFacingError(`give ${source.flag} or ${source.flag}-stdin, not both`, `${source.flag}-stdin keeps the secret out of ps and the shell history: drop ${source.flag}`, 2);
  if (source.value !== undefined) {
    io.warn(`${source.flag} on the command line is visible to other users of this machine (ps, shell history); prefer ${source.flag}-stdin`);
    return source.value;
  }
  if (source.fromStdin) {
    const value = await readAllStdin();
    if (!value) throw new UserFacingError('standard input was empty', `pipe the secret in, e.g. \`pass show x | fieldops ... ${source.flag}-stdin\``, 2);
    return value;
  }
  if (!source.promptAs) return undefined;
  if (!stdinIsTty()) {
    throw new UserFacingError(`no ${source.promptAs} given and standard input is not a terminal to prompt on`, `pipe it in with ${source.flag}-stdin`, 2);
  }
  const first = await prompt(`New ${source.promptAs}: `, { secret: true, stderr: io.stderr });
  const again = await prompt(`Repeat the ${source.promptAs}: `, { secret: true, stderr: io.stderr });
  if (first !== again) throw new UserFacingError(`the two ${source.promptAs}s differ`, 'run the command again', 1);
  if (!first) throw new UserFacingError(`empty ${source.promptAs}`, 'type one at the prompt (it is not echoed), or pipe it in with ' + `${source.flag}-stdin`, 2);
  return first;
}
