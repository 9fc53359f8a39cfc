/**
 * A private home for the real `fieldops` binary in a test: temporary config and data
 * directories (never the developer's ~/.config), short retry delays, and helpers to log in.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { runCli, type CliResult } from './cli.js';
import { ADMIN_PASSWORD } from './server.js';

export interface CliEnv {
  dir: string;
  env: Record<string, string>;
  configDir: string;
  /** The default profile's mirror file. */
  mirror: string;
  run(args: string[], options?: { env?: Record<string, string>; input?: string; timeoutMs?: number }): Promise<CliResult>;
  /** Runs with `--json` appended and parses stdout; fails loudly with stderr when it is not JSON. */
  json<T = any>(args: string[], options?: { env?: Record<string, string> }): Promise<{ code: number | null; body: T; stderr: string }>;
  login(url: string, username?: string, password?: string, extra?: string[]): Promise<CliResult>;
}

export function cliEnv(t: Test, extra: Record<string, string> = {}): CliEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-cli-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = {
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    FIELDOPS_RETRY_DELAY_MS: '20',
    ...extra,
  };
  const run: CliEnv['run'] = (args, options = {}) => runCli(args, { ...options, env: { ...env, ...options.env } });
  return {
    dir,
    env,
    configDir: path.join(dir, 'config', 'fieldops'),
    mirror: path.join(dir, 'data', 'fieldops', 'default.sqlite3'),
    run,
    async json(args, options = {}) {
      const result = await run([...args, '--json'], options);
      try {
        return { code: result.code, body: JSON.parse(result.stdout), stderr: result.stderr };
      } catch {
        throw new Error(`fieldops ${args.join(' ')} --json printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
      }
    },
    login: (url, username = 'admin', password = ADMIN_PASSWORD, extraArgs = []) =>
      run(['login', '--server', url, '--username', username, '--password-stdin', ...extraArgs], { input: password + '\n' }),
  };
}
