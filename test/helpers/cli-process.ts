/** The real `fieldops` as a child the test can watch and kill (runCli waits for the end). */
import { spawn, type ChildProcess } from 'node:child_process';
import { binPath } from './cli.js';
import { noteChildOutput } from './warnings.js';

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr matches (rejects if the process ends first). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [binPath, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const watchers: Array<() => void> = [];
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => {
    err += chunk;
    for (const watch of [...watchers]) watch();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      noteChildOutput(err, `fieldops ${args.join(' ')}`);
      resolve({ code, signal });
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStderr(pattern, timeoutMs = 30000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern} in stderr:\n${err}`)), timeoutMs);
        const watch = () => {
          if (!pattern.test(err)) return;
          clearTimeout(timer);
          watchers.splice(watchers.indexOf(watch), 1);
          resolve();
        };
        watchers.push(watch);
        void exited.then(() => {
          if (pattern.test(err)) return;
          clearTimeout(timer);
          reject(new Error(`fieldops ended before ${pattern} appeared:\n${err}\n${out}`));
        });
        watch();
      });
    },
  };
}
