import { spawn, type ChildProcess } from 'node:child_process';
import { binPath } from './cli.js';
import { noteChildOutput } from './warnings.js';

export interface ServeProcess {
  child: ChildProcess;
  url: Promise<string>;
  exited: Promise<number | null>;
  output(): string;
}

/** Starts the real `fieldops serve` on an ephemeral port; `url` resolves once it listens. */
export function serveProcess(env: Record<string, string>, args: string[] = []): ServeProcess {
  const child = spawn(process.execPath, [process.env.FIELDOPS_BIN ?? binPath, 'serve', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      noteChildOutput(output, 'fieldops serve');
      resolve(code);
    }),
  );
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', onData);
    void exited.then(() => reject(new Error(`serve exited early: ${output}`)));
  });
  return { child, url, exited, output: () => output };
}
