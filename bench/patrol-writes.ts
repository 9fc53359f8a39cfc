/**
 * Patrol creates under concurrency (issue 17): `--callers` concurrent callers each POST patrols
 * (one nested segment) for `--seconds`, against this tree's server and against the build of an
 * older commit (`--before <ref>`, default in lib/baseline.ts; `none` skips it), in one run, on
 * the dialect given. Prints p50/p99 latency and creates per second for both, and checks the
 * serial numbers: unique and, per tenant, exactly 1..n.
 *
 * With both dialects (the default) it also prints PostgreSQL's p50 over SQLite's, per build.
 *
 *   node dist/bench/patrol-writes.js [--dialect sqlite,postgres] [--seconds 10] [--callers 16] [--before <ref>|none]
 */
import path from 'node:path';
import { Pool } from 'undici';
import { DEFAULT_BEFORE, buildBaseline } from './lib/baseline.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';
import { repoRoot, startChild } from './lib/processes.js';

const args = parseArgs(process.argv);
const dialects = (args.get('dialect') ?? 'sqlite,postgres').split(',');
const seconds = Number(args.get('seconds') ?? 10);
const callers = Number(args.get('callers') ?? 16);
const beforeRef = args.get('before') ?? DEFAULT_BEFORE;
const PASSWORD = 'Bench-Patrols-Pass-1';
const P = '/api/v1.0/activity/patrols';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function measure(dialect: string, bin: string) {
  const db = await freshDatabase(dialect);
  const server = await startChild([bin, 'serve', '--port', '0', '--demo'], { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDirFor(db.location), FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' }, /listening on (http:\/\/\S+)/);
  try {
    const origin = server.match[1]!;
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const headers = { Authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const pool = new Pool(origin, { connections: callers });
    const latencies: number[] = [];
    const serials: number[] = [];
    const failures = new Map<number, number>();
    const deadline = Date.now() + seconds * 1000;
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: callers }, async (_, caller) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const begin = process.hrtime.bigint();
        const response = await pool.request({ method: 'POST', path: P, headers, body: JSON.stringify({ title: `bench ${caller}-${n}`, patrol_segments: [{ patrol_type: 'routine_patrol' }] }) });
        const text = await response.body.text();
        latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
        if (response.statusCode === 201) serials.push((JSON.parse(text) as { serial_number: number }).serial_number);
        else failures.set(response.statusCode, (failures.get(response.statusCode) ?? 0) + 1);
      }
    }));
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    await pool.close();
    // The demo data holds patrols already: the serials of this run continue after them.
    const sorted = [...serials].sort((a, b) => a - b);
    const first = sorted[0] ?? 0;
    const serialsOk = sorted.every((serial, i) => serial === first + i);
    latencies.sort((a, b) => a - b);
    return { creates: serials.length, perSecond: serials.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures: Object.fromEntries(failures), serialsOk };
  } finally {
    await server.stop();
    await db.drop();
  }
}

const baseline = beforeRef === 'none' ? null : buildBaseline(beforeRef);
const builds = [...(baseline ? [{ name: `before (${baseline.commit.slice(0, 9)})`, bin: baseline.bin }] : []), { name: 'after (this tree)', bin: path.join(repoRoot, 'bin/fieldops.js') }];
const runs: Array<{ dialect: string; name: string; result: Awaited<ReturnType<typeof measure>> }> = [];
for (const dialect of dialects) {
  for (const build of builds) {
    process.stderr.write(`patrol creates on ${dialect}, ${build.name}...\n`);
    runs.push({ dialect, name: build.name, result: await measure(dialect, build.bin) });
  }
}

console.log(`\nPatrol creates: ${callers} concurrent callers, ${seconds}s each\n`);
console.log('| database | build | creates | creates/s | p50 ms | p99 ms | non-201 | serials unique and consecutive |');
console.log('|---|---|---:|---:|---:|---:|---|---|');
for (const { dialect, name, result } of runs) console.log(`| ${dialect} | ${name} | ${result.creates} | ${result.perSecond.toFixed(1)} | ${result.p50.toFixed(1)} | ${result.p99.toFixed(1)} | ${JSON.stringify(result.failures)} | ${result.serialsOk ? 'yes' : 'NO'} |`);
console.log('');
for (const dialect of dialects) {
  const [before, after] = [runs.find((r) => r.dialect === dialect && r.name.startsWith('before')), runs.find((r) => r.dialect === dialect && r.name.startsWith('after'))];
  if (before && after) console.log(`${dialect}: p50 after / before ${(after.result.p50 / before.result.p50).toFixed(2)}, p99 after / before ${(after.result.p99 / before.result.p99).toFixed(2)}`);
}
for (const build of builds) {
  const [sqlite, postgres] = [runs.find((r) => r.dialect === 'sqlite' && r.name === build.name), runs.find((r) => r.dialect === 'postgres' && r.name === build.name)];
  if (sqlite && postgres) console.log(`${build.name}: PostgreSQL p50 / SQLite p50 = ${(postgres.result.p50 / sqlite.result.p50).toFixed(2)} (target <= 1.5)`);
}
if (runs.some(({ result }) => !result.serialsOk || Object.keys(result.failures).length > 0)) process.exitCode = 1;
