/**
 * Catalog revalidation benchmark (issue 4): throughput of the patrol type list answered 304
 * (If-None-Match) and 200, for catalogs of 10, 1,000 and 10,000 types, as a ratio to a bare
 * node:http server answering the same request from memory, measured in the same run.
 *
 * The machines are shared and noisy, so bare and fieldops are measured in alternation, in
 * several rounds, and each ratio is the median of the rounds' ratios (each round's pair is
 * measured back to back, under the same conditions).
 *
 *   node dist/bench/catalog.js [--dialect sqlite|postgres] [--seconds 3] [--rounds 3] [--sizes 10,1000,10000] [--connections 16]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import { runLoad, type LoadResult } from './lib/load.js';
import { repoRoot, startChild } from './lib/processes.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';

const args = parseArgs(process.argv);
const dialect = args.get('dialect') ?? 'sqlite';
const seconds = Number(args.get('seconds') ?? 3);
const rounds = Number(args.get('rounds') ?? 3);
const sizes = (args.get('sizes') ?? '10,1000,10000').split(',').map(Number);
const connections = Number(args.get('connections') ?? 16);
const PASSWORD = 'Bench-Catalog-Pass-1';
const pct = (value: number) => `${(value * 100).toFixed(0)}%`;
const TYPES = '/api/v1.0/activity/patrols/types';


/** Inserts `count` patrol types directly and moves the catalog version, as the service would. */
async function seed(location: string, count: number): Promise<void> {
  const knex = dialect === 'sqlite'
    ? knexFactory({ client: 'better-sqlite3', connection: { filename: location }, useNullAsDefault: true })
    : knexFactory({ client: 'pg', connection: location });
  const tenant = await knex('tenants').where({ name: 'default' }).first();
  const now = Date.now();
  const rows = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(), tenant_id: tenant.id, value: `type-${String(i).padStart(5, '0')}`, display: `Patrol type ${i}`,
    ordernum: i + 1, icon: i % 3 === 0 ? `icon-${i}` : '', default_priority: [0, 100, 200, 300][i % 4], is_active: true,
    schema: '{"json":{},"ui":{}}', revision: 1, created_at: now, updated_at: now + i,
  }));
  await knex.batchInsert('patrol_types', rows, 500);
  await knex('catalog_versions').insert({ tenant_id: tenant.id, catalog: 'patroltypes', version: 1, last_modified: now + count }).onConflict(['tenant_id', 'catalog']).merge();
  await knex.destroy();
}

async function measure(size: number) {
  const db = await freshDatabase(dialect);
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDirFor(db.location), FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' };
  const server = await startChild([path.join(repoRoot, 'bin/fieldops.js'), 'serve', '--port', '0'], env, /listening on (http:\/\/\S+)/);
  const origin = server.match[1]!;
  try {
    await seed(db.location, size);
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const auth = { Authorization: `Bearer ${token}` };
    const first = await fetch(origin + TYPES, { headers: auth });
    const etag = first.headers.get('etag')!;
    const body = Buffer.from(await first.arrayBuffer());
    const bodyFile = path.join(os.tmpdir(), `fieldops-bench-body-${process.pid}.json`);
    fs.writeFileSync(bodyFile, body);
    const bare = await startChild([path.join(repoRoot, 'dist/bench/lib/bare-server.js'), bodyFile, etag], {}, /^(\d+)\n/);
    const bareOrigin = `http://127.0.0.1:${bare.match[1]}`;
    const load = { connections, seconds };
    const warm = { connections, seconds: 1 };
    try {
      const runs: Record<string, LoadResult[]> = { 'bare 304': [], 'fieldops 304': [], 'bare 200': [], 'fieldops 200': [] };
      for (let round = 1; round <= rounds; round++) {
        for (const [name, target, headers] of [
          ['bare 304', bareOrigin, { ...auth, 'If-None-Match': etag }],
          ['fieldops 304', origin, { ...auth, 'If-None-Match': etag }],
          ['bare 200', bareOrigin, auth],
          ['fieldops 200', origin, auth],
        ] as const) {
          await runLoad(target, TYPES, headers, warm);
          const result = await runLoad(target, TYPES, headers, load);
          const expected = name.endsWith('304') ? 304 : 200;
          if (result.statuses[expected] !== result.requests) throw new Error(`${name}: unexpected statuses ${JSON.stringify(result.statuses)}`);
          runs[name]!.push(result);
        }
        const last = (name: string) => runs[name]!.at(-1)!.perSecond;
        process.stderr.write(`  ${size} types, round ${round}/${rounds}: 304 ${pct(last('fieldops 304') / last('bare 304'))}, 200 ${pct(last('fieldops 200') / last('bare 200'))}\n`);
      }
      const ratios = (status: string) => runs[`fieldops ${status}`]!.map((result, i) => result.perSecond / runs[`bare ${status}`]![i]!.perSecond);
      return {
        size,
        bodyBytes: body.length,
        perSecond: Object.fromEntries(Object.entries(runs).map(([name, results]) => [name, Math.round(median(results.map((result) => result.perSecond)))])),
        ratio304: median(ratios('304')),
        ratio200: median(ratios('200')),
        rounds: { ratio304: ratios('304'), ratio200: ratios('200') },
      };
    } finally {
      await bare.stop();
      fs.rmSync(bodyFile, { force: true });
    }
  } finally {
    await server.stop();
    await db.drop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const rows = [];
for (const size of sizes) {
  process.stderr.write(`measuring ${size} types on ${dialect}...\n`);
  rows.push(await measure(size));
}
console.log(`\nPatrol type list on ${dialect}, ${connections} connections, ${rounds} rounds of ${seconds}s per measurement, medians (${os.cpus().length} cores)\n`);
console.log('| types | body bytes | bare 304/s | fieldops 304/s | 304 ratio | bare 200/s | fieldops 200/s | 200 ratio |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) {
  const p = row.perSecond;
  console.log(`| ${row.size} | ${row.bodyBytes} | ${p['bare 304']} | ${p['fieldops 304']} | ${pct(row.ratio304)} | ${p['bare 200']} | ${p['fieldops 200']} | ${pct(row.ratio200)} |`);
}
// Issue 4's targets: 304 at >= 50% of bare at every size; 200 at >= 40% for 1,000 types.
const worst304 = Math.min(...rows.map((row) => row.ratio304));
const at1000 = rows.find((row) => row.size === 1000);
console.log(`\n304 target (>= 50% at every size): ${worst304 >= 0.5 ? 'met' : 'MISSED'}, lowest ${pct(worst304)}`);
if (at1000) console.log(`200 target (>= 40% for 1,000 types): ${at1000.ratio200 >= 0.4 ? 'met' : 'MISSED'}, ${pct(at1000.ratio200)}`);
const outDir = path.join(repoRoot, 'bench/results');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, `catalog-${dialect}.json`), JSON.stringify({ dialect, connections, seconds, rounds, rows, at: new Date().toISOString() }, null, 2));
