/**
 * Mixed load and soak (issue 9): 80% conditional catalog GETs, 10% patrol reads and writes,
 * 10% sensor batches, from `--concurrency` callers for `--seconds`, against one server process.
 * Reports throughput, p50/p99 latency per kind, every non-2xx/304 status (5xx must be zero) and
 * the server's resident memory sampled every few seconds (flat over a long soak: run it with
 * `--seconds 600`).
 *
 *   node dist/bench/load.js [--dialect sqlite|postgres] [--seconds 30] [--concurrency 16]
 */
import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';
import { repoRoot, startChild } from './lib/processes.js';

const args = parseArgs(process.argv);
const dialect = args.get('dialect') ?? 'sqlite';
const seconds = Number(args.get('seconds') ?? 30);
const concurrency = Number(args.get('concurrency') ?? 16);
const PASSWORD = 'Bench-Load-Pass-1';
const TYPES = '/api/v1.0/activity/patrols/types';

type Kind = 'catalog 304' | 'patrol read' | 'patrol write' | 'sensor batch';
const latencies: Record<Kind, number[]> = { 'catalog 304': [], 'patrol read': [], 'patrol write': [], 'sensor batch': [] };
const statuses = new Map<string, number>();

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

const db = await freshDatabase(dialect);
const server = await startChild(
  [path.join(repoRoot, 'bin/fieldops.js'), 'serve', '--port', '0', '--demo'],
  { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDirFor(db.location), FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' },
  /listening on (http:\/\/\S+)/,
);
const origin = server.match[1]!;
try {
  const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  const etag = (await fetch(origin + TYPES, { headers: auth })).headers.get('etag')!;
  const pool = new Pool(origin, { connections: concurrency });
  const memory: Array<{ at: number; rss: number }> = [];
  const started = Date.now();
  const sampler = setInterval(() => memory.push({ at: (Date.now() - started) / 1000, rss: rssOf(server.child.pid!) }), 5000);
  memory.push({ at: 0, rss: rssOf(server.child.pid!) });
  let sequence = 0;
  const call = async (kind: Kind, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const begin = process.hrtime.bigint();
    const response = await pool.request({ method: method as 'GET', path: route, headers: { ...auth, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    await response.body.arrayBuffer();
    latencies[kind].push(Number(process.hrtime.bigint() - begin) / 1e6);
    const key = `${kind} ${response.statusCode}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  };
  const deadline = started + seconds * 1000;
  const worker = async (id: number) => {
    while (Date.now() < deadline) {
      const n = sequence++;
      const roll = n % 10;
      if (roll < 8) await call('catalog 304', 'GET', TYPES, undefined, { 'If-None-Match': etag });
      else if (roll === 8 && n % 20 === 8) await call('patrol write', 'POST', '/api/v1.0/activity/patrols', { title: `load ${n}`, patrol_segments: [{ patrol_type: 'routine_patrol' }] });
      else if (roll === 8) await call('patrol read', 'GET', '/api/v1.0/activity/patrols?page_size=25');
      else await call('sensor batch', 'POST', '/sensors/gps-radio/load/status', Array.from({ length: 20 }, (_, i) => ({ manufacturer_id: `load-${id}`, recorded_at: new Date(Date.UTC(2026, 0, 1) + n * 1000 + i).toISOString(), location: { lat: -1, lon: 36 } })));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, id) => worker(id)));
  clearInterval(sampler);
  memory.push({ at: (Date.now() - started) / 1000, rss: rssOf(server.child.pid!) });
  await pool.close();
  const elapsed = (Date.now() - started) / 1000;
  const total = Object.values(latencies).reduce((sum, list) => sum + list.length, 0);
  const serverErrors = [...statuses.entries()].filter(([key]) => / 5\d\d$/.test(key)).reduce((sum, [, n]) => sum + n, 0);
  console.log(`\nMixed load on ${dialect}: ${concurrency} callers for ${elapsed.toFixed(0)} s: ${total} requests, ${(total / elapsed).toFixed(0)}/s, ${serverErrors} 5xx\n`);
  console.log('| kind | requests | p50 ms | p99 ms |');
  console.log('|---|---:|---:|---:|');
  for (const [kind, values] of Object.entries(latencies)) console.log(`| ${kind} | ${values.length} | ${percentile(values, 50).toFixed(1)} | ${percentile(values, 99).toFixed(1)} |`);
  console.log(`\nstatuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
  const first = memory[0]!.rss;
  const settled = memory.find((sample) => sample.at >= Math.min(30, elapsed / 3))?.rss ?? first;
  const last = memory.at(-1)!.rss;
  console.log(`server RSS: start ${(first / 2 ** 20).toFixed(0)} MiB, after warm-up ${(settled / 2 ** 20).toFixed(0)} MiB, end ${(last / 2 ** 20).toFixed(0)} MiB, max ${(Math.max(...memory.map((m) => m.rss)) / 2 ** 20).toFixed(0)} MiB`);
  const outDir = path.join(repoRoot, 'bench/results');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, `load-${dialect}.json`), JSON.stringify({ dialect, concurrency, seconds: elapsed, total, serverErrors, statuses: Object.fromEntries(statuses), latencies: Object.fromEntries(Object.entries(latencies).map(([k, v]) => [k, { n: v.length, p50: percentile(v, 50), p99: percentile(v, 99) }])), memory }, null, 2));
  if (serverErrors > 0) process.exitCode = 1;
} finally {
  await server.stop();
  await db.drop();
}
