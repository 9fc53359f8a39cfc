/**
 * Issue 13 item 4: what a flood of random client secrets does to a normal login.
 *
 * Each scenario fires `--flood` (200) token requests with a random `client_secret` at once,
 * waits 50 ms, then times one normal password login (admin, through the public client) from an
 * address of its own; a quiet login measured in the same run is the baseline. Scenarios:
 *  - one address: the whole flood from 127.0.0.2 at one confidential client;
 *  - many addresses: one request per address (127.0.1.x), spread over 20 confidential clients,
 *    so that no per-client or per-address throttle applies and only the scrypt gate can help.
 * The server runs the production scrypt cost. `--root` points at another checkout's build
 * (to measure the code before the fix with this same script).
 *
 *   node dist/bench/credential-flood.js [--dialect sqlite|postgres] [--flood 200] [--rounds 3] [--root DIR]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';
import { repoRoot, startChild } from './lib/processes.js';

const args = parseArgs(process.argv);
const dialect = args.get('dialect') ?? 'sqlite';
const floodSize = Number(args.get('flood') ?? 200);
const rounds = Number(args.get('rounds') ?? 3);
const root = path.resolve(args.get('root') ?? repoRoot);
const PASSWORD = 'Bench-Flood-Pass-1';
const SECRET = 'bench-client-secret-0123456789';
const CLIENTS = 20;

const agents = new Map<string, Agent>();
const from = (address: string) => {
  let agent = agents.get(address);
  if (!agent) agents.set(address, (agent = new Agent({ localAddress: address })));
  return agent;
};

async function post(origin: string, address: string, form: Record<string, string>): Promise<number> {
  const response = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams(form), dispatcher: from(address) } as unknown as RequestInit);
  await response.arrayBuffer();
  return response.status;
}

async function timedLogin(origin: string): Promise<{ ms: number; status: number }> {
  const begin = performance.now();
  const status = await post(origin, '127.0.0.250', { grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD });
  return { ms: performance.now() - begin, status };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

type Scenario = 'one address' | 'many addresses';

async function flood(origin: string, scenario: Scenario, round: number) {
  const requests = Array.from({ length: floodSize }, (_, i) => {
    const address = scenario === 'one address' ? '127.0.0.2' : `127.0.${1 + round}.${1 + (i % 250)}`;
    const client = scenario === 'one address' ? 'partner-0' : `partner-${i % CLIENTS}`;
    return post(origin, address, { grant_type: 'password', client_id: client, client_secret: randomBytes(24).toString('base64url'), username: 'admin', password: 'x' });
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const begin = performance.now();
  const login = await timedLogin(origin);
  const statuses = await Promise.all(requests);
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return { login, floodMs: performance.now() - begin, counts };
}

const db = await freshDatabase(dialect);
const dataDir = dataDirFor(db.location);
const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn', FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS: '0' };
const bin = path.join(root, 'bin/fieldops.js');
const server = await startChild([bin, 'serve', '--port', '0'], env, /listening on (http:\/\/\S+)/);
const origin = server.match[1]!;
const report: Record<string, unknown> = { dialect, floodSize, rounds, root, cores: os.cpus().length, at: new Date().toISOString() };
try {
  for (let i = 0; i < CLIENTS; i++) {
    const created = spawnSync(process.execPath, [bin, 'admin', 'create-client', '--tenant', 'default', '--client-id', `partner-${i}`, '--secret', SECRET, '--grant', 'password'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`create-client failed: ${created.stderr}`);
  }
  await timedLogin(origin); // warm up (the first login also builds the decoy hash)
  const quiet: number[] = [];
  for (let i = 0; i < 5; i++) quiet.push((await timedLogin(origin)).ms);
  report.quietMs = median(quiet);
  console.log(`\nCredential flood on ${dialect} (${root === repoRoot ? 'this checkout' : root}), ${floodSize} random client secrets per round, ${rounds} rounds, ${os.cpus().length} cores`);
  console.log(`quiet login: median ${median(quiet).toFixed(0)} ms\n`);
  console.log('| scenario | login under flood (median) | ratio to quiet | login statuses | flood answers |');
  console.log('|---|---:|---:|---|---|');
  const scenarios: Record<string, unknown> = {};
  for (const scenario of ['one address', 'many addresses'] as Scenario[]) {
    const runs = [];
    for (let round = 0; round < rounds; round++) runs.push(await flood(origin, scenario, round));
    const loginMs = median(runs.map((run) => run.login.ms));
    const answers: Record<string, number> = {};
    for (const run of runs) for (const [status, n] of Object.entries(run.counts)) answers[status] = (answers[status] ?? 0) + n;
    scenarios[scenario] = { loginMs, ratio: loginMs / median(quiet), runs };
    const statuses = [...new Set(runs.map((run) => run.login.status))].join(', ');
    console.log(`| ${scenario} | ${loginMs.toFixed(0)} ms | ${(loginMs / median(quiet)).toFixed(1)}x | ${statuses} | ${Object.entries(answers).map(([s, n]) => `${s}: ${n}`).join(', ')} |`);
  }
  report.scenarios = scenarios;
} finally {
  await server.stop();
  await db.drop();
  for (const agent of agents.values()) await agent.close();
}
const outDir = path.join(repoRoot, 'bench/results');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, `credential-flood-${dialect}${root === repoRoot ? '' : '-other'}.json`), JSON.stringify(report, null, 2));
