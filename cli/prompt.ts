/**
 * Reading secrets: from a terminal without echo, or the whole of standard input
 * (`--password-stdin`, for scripts: `pass show x | fieldops login --password-stdin`).
 */
import { UserFacingError } from './errors.js';

type Input = NodeJS.ReadStream;

export async function readAllStdin(stdin: Input = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  // One trailing newline is the shell's, not the password's.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export const stdinIsTty = (stdin: Input = process.stdin): boolean => Boolean(stdin.isTTY);

/** Prompts on the terminal; `secret` hides what is typed. Ctrl-C aborts with exit code 130. */
export function prompt(question: string, options: { secret: boolean; stderr: NodeJS.WritableStream; stdin?: Input }): Promise<string> {
  const stdin = options.stdin ?? process.stdin;
  const out = options.stderr;
  out.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const wasRaw = stdin.isRaw;
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const finish = (error?: Error) => {
      stdin.setRawMode?.(wasRaw ?? false);
      stdin.pause();
      stdin.off('data', onData);
      out.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: string) => {
      for (const char of data) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new UserFacingError('cancelled', undefined, 130));
        if (char === '\u0004' && value === '') return finish(new UserFacingError('cancelled (end of input)', undefined, 1));
        if (char === '\u007f' || char === '\b') {
          if (value.length > 0) {
            value = value.slice(0, -1);
            if (!options.secret) out.write('\b \b');
          }
          continue;
        }
        value += char;
        if (!options.secret) out.write(char);
      }
    };
    stdin.on('data', onData);
  });
}
