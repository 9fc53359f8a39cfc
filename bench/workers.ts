/**
 * `serve --workers` benchmark (issue 17): throughput of the catalog 304 revalidation and of the
 * mixed load (bench/load.ts's mix), with 1 worker (one process, no cluster) and 2 workers, as a
 * ratio 2 workers / 1 worker measured in the same run.
 *
 * Both servers run at once on one database (the multi-process rules hold between them) and are
 * measured in alternation, in several rounds; each ratio is the median of the rounds' ratios.
 * NOTE: the load generator is this process, on the same machine: on a 2-core machine it takes
 * much of one core, so 2 workers cannot show 2x here. Read the ratio with the core count printed.
 *
 *   node dist/bench/workers.js [--dialect sqlite|postgres] [--seconds 5] [--rounds 3] [--connections 16]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runLoad } from './lib/load.js';
import { percentile, runMixed } from './lib/mixed.js';
import { repoRoot, startChild } from './lib/processes.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';

const args = parseArgs(process.argv);
const dialect = args.get('dialect') ?? 'sqlite';
const seconds = Number(args.get('seconds') ?? 5);
const rounds = Number(args.get('rounds') ?? 3);
const connections = Number(args.get('connections') ?? 16);
const PASSWORD = 'Bench-Workers-Pass-1';
const TYPES = '/api/v1.0/activity/patrols/types';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const db = await freshDatabase(dialect);
const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDirFor(db.location), FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' };
const serve = (workers: number) => startChild([path.join(repoRoot, 'bin/fieldops.js'), 'serve', '--port', '0', '--demo', '--workers', String(workers)], env, /listening on (http:\/\/\S+)/);
// The first start migrates and loads the demo data; the second finds them done.
const servers = { 1: await serve(1), 2: await serve(2) } as const;
try {
  const origins = { 1: servers[1].match[1]!, 2: servers[2].match[1]! };
  const login = await fetch(`${origins[1]}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  // Each server's own ETag: bodies hold absolute URLs, so the origin (its port) is part of it.
  const etags = { 1: (await fetch(origins[1] + TYPES, { headers: auth })).headers.get('etag')!, 2: (await fetch(origins[2] + TYPES, { headers: auth })).headers.get('etag')! };

  const perSecond = { 'catalog 304': { 1: [] as number[], 2: [] as number[] }, mixed: { 1: [] as number[], 2: [] as number[] } };
  const mixedLatency = { 1: [] as number[], 2: [] as number[] };
  let serverErrors = 0;
  const errorStatuses: Record<string, number> = {};
  for (let round = 1; round <= rounds; round++) {
    for (const workers of [1, 2] as const) {
      await runLoad(origins[workers], TYPES, { ...auth, 'If-None-Match': etags[workers] }, { connections, seconds: 1 });
      const catalog = await runLoad(origins[workers], TYPES, { ...auth, 'If-None-Match': etags[workers] }, { connections, seconds });
      if (catalog.statuses[304] !== catalog.requests) throw new Error(`catalog 304 with ${workers} worker(s): unexpected statuses ${JSON.stringify(catalog.statuses)}`);
      perSecond['catalog 304'][workers].push(catalog.perSecond);
    }
    for (const workers of [1, 2] as const) {
      const mixed = await runMixed(origins[workers], auth, etags[workers], { concurrency: connections, seconds, tag: `w${workers}r${round}` });
      for (const [key, n] of Object.entries(mixed.statuses)) {
        if (!/ 5\d\d$/.test(key)) continue;
        serverErrors += n;
        errorStatuses[`${workers}w ${key}`] = (errorStatuses[`${workers}w ${key}`] ?? 0) + n;
      }
      perSecond.mixed[workers].push(mixed.perSecond);
      mixedLatency[workers].push(...Object.values(mixed.latencies).flat());
    }
    const last = (kind: 'catalog 304' | 'mixed') => (perSecond[kind][2].at(-1)! / perSecond[kind][1].at(-1)!).toFixed(2);
    process.stderr.write(`  round ${round}/${rounds}: catalog 304 ${last('catalog 304')}x, mixed ${last('mixed')}x (2 workers / 1)\n`);
  }
  const ratio = (kind: 'catalog 304' | 'mixed') => median(perSecond[kind][2].map((value, i) => value / perSecond[kind][1][i]!));
  const rows = (['catalog 304', 'mixed'] as const).map((kind) => ({ kind, one: median(perSecond[kind][1]), two: median(perSecond[kind][2]), ratio: ratio(kind), rounds: perSecond[kind] }));
  console.log(`\nserve --workers on ${dialect}: ${connections} connections, ${rounds} rounds of ${seconds} s, medians; ${os.availableParallelism()} cores (the load generator shares them)\n`);
  console.log('| load | 1 worker req/s | 2 workers req/s | 2 workers / 1 worker |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows) console.log(`| ${row.kind} | ${row.one.toFixed(0)} | ${row.two.toFixed(0)} | ${row.ratio.toFixed(2)} |`);
  const latency = (workers: 1 | 2) => `p50 ${percentile(mixedLatency[workers], 50).toFixed(1)} ms, p99 ${percentile(mixedLatency[workers], 99).toFixed(1)} ms`;
  console.log(`\nmixed load latency, all kinds: 1 worker ${latency(1)}; 2 workers ${latency(2)}; 5xx: ${serverErrors}${serverErrors ? ` ${JSON.stringify(errorStatuses)}` : ''}`);
  const outDir = path.join(repoRoot, 'bench/results');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, `workers-${dialect}.json`), JSON.stringify({ dialect, connections, seconds, rounds, cores: os.availableParallelism(), rows, serverErrors, at: new Date().toISOString() }, null, 2));
  if (serverErrors > 0) process.exitCode = 1;
} finally {
  await servers[1].stop();
  await servers[2].stop();
  await db.drop();
}
