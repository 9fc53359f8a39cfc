/**
 * CLI start-up benchmark (issue 14): how long `fieldops <command>` takes as a process, with a
 * mirror of 1,000 patrol types. Against a real `fieldops serve` (child process, SQLite): seeds
 * the types, logs in and syncs once, then runs each command `--runs` times and prints medians,
 * (CPU time of the process, and wall time) next to a bare `node -e ''` start in the same run (the
 * floor no CLI can go below). Needs /usr/bin/time.
 *
 *   node dist/bench/cli-startup.js [--types 1000] [--runs 15] [--bin path/to/bin/fieldops.js]
 *
 * `--bin` times another build (e.g. a copy of main's) against the same mirror.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { bulkInsertPatrolTypes } from '../test/helpers/bulk-catalog.js';
import { repoRoot, startChild } from './lib/processes.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const TYPES = Number(args.get('types') ?? 1000);
const RUNS = Number(args.get('runs') ?? 15);
const PASSWORD = 'Bench-Startup-Passphrase-5';
const ownBin = path.join(repoRoot, 'bin/fieldops.js');
const timedBin = path.resolve(args.get('bin') ?? ownBin);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Wall time and CPU time (user + system, from /usr/bin/time) of one run, in ms. */
function timeRun(argv: string[], env: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const start = process.hrtime.bigint();
  const result = spawnSync('/usr/bin/time', ['-f', '@@%U %S', process.execPath, ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  const [user, system] = /@@([\d.]+) ([\d.]+)/.exec(String(result.stderr))!.slice(1).map(Number);
  return { wall, cpu: (user! + system!) * 1000 };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-startup-'));
  const database = path.join(dir, 'server.sqlite3');
  const server = await startChild(
    [ownBin, 'serve', '--port', '0'],
    { DATABASE_URL: database, FIELDOPS_DATA_DIR: path.join(dir, 'data'), FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn' },
    /listening on (http:\/\/\S+)/,
  );
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'share'), NO_COLOR: '1' };
  try {
    const seeder = knexFactory({ client: 'better-sqlite3', connection: { filename: database }, useNullAsDefault: true });
    await bulkInsertPatrolTypes(seeder, TYPES);
    await seeder.destroy();
    await new Promise<void>((resolve, reject) => {
      const login = spawn(process.execPath, [ownBin, 'login', '--server', server.match[1]!, '--username', 'admin', '--password-stdin'], { env, stdio: ['pipe', 'ignore', 'inherit'] });
      login.stdin.end(PASSWORD + '\n');
      login.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`login exited ${code}`))));
    });
    const sync = spawnSync(process.execPath, [ownBin, 'sync'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (sync.status !== 0) throw new Error('sync failed');
  } finally {
    await server.stop();
  }
  const cases: Array<[string, string[]]> = [
    ['node -e "" (floor)', ['-e', '']],
    ['fieldops --help', [timedBin, '--help']],
    ['fieldops status', [timedBin, 'status']],
    [`fieldops types list (${TYPES} types)`, [timedBin, 'types', 'list']],
    [`fieldops types list --json`, [timedBin, 'types', 'list', '--json']],
  ];
  // CPU time is what the process itself costs; wall time also counts waiting for a busy machine.
  console.log(`CLI start-up, ${timedBin}, median of ${RUNS} runs`);
  console.log('| command | CPU ms (median) | wall ms (median) | wall ms (min) |');
  console.log('|---|---:|---:|---:|');
  for (const [name, argv] of cases) {
    timeRun(argv, env);
    const runs = Array.from({ length: RUNS }, () => timeRun(argv, env));
    const wall = runs.map((r) => r.wall);
    console.log(`| ${name} | ${median(runs.map((r) => r.cpu)).toFixed(0)} | ${median(wall).toFixed(0)} | ${Math.min(...wall).toFixed(0)} |`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
