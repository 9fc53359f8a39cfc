import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Starts a child process and resolves once `ready` matches its output. */
export function startChild(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray; stop(): Promise<void> }> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({
          child,
          match,
          stop: () => new Promise((done) => {
            child.once('close', () => done());
            child.kill('SIGTERM');
          }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('close', (code) => reject(new Error(`child exited (${code}) before it was ready:\n${output}`)));
  });
}
