/**
 * Sensor intake benchmark (issue 6): sustained observations per second through
 * `POST /sensors/gps-radio/<key>/status` (batches of 100, 4 concurrent senders, a fixed duration
 * after an uncounted warm-up),
 * against the bare database insert rate measured in the same run (the same batches inserted
 * with INSERT ... ON CONFLICT DO NOTHING in a transaction, by 4 concurrent writers on a database
 * opened exactly as the server opens it). Two bare rates: as issue 6 measured it (random ids, no
 * subjects: the yardstick of issue 17's target of 75%), and the rows exactly as the server
 * stores them (its time-ordered ids, each row's subject: the stricter comparison, printed too). Every 10th request of a sender repeats its
 * previous batch (a client retry), which must store nothing. At the end the database is
 * counted: every acknowledged observation (warm-up included) must be there once, and nothing else.
 *
 * Before/after (issue 17): the same intake is also run against the build of an older commit
 * (`--before <ref>`, built once into a temp dir; `--before none` skips it), in the same run, in
 * alternating rounds, so both ratios to the bare rate come from the same machine and minute.
 *
 *   node dist/bench/sensors.js [--dialect sqlite|postgres] [--seconds 10] [--warmup 2] [--senders 4] [--batch 100] [--rounds 1] [--before <ref>|none]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import { Pool } from 'undici';
import { parseDatabase } from '../server/config.js';
import { openDatabase } from '../server/db/knex.js';
import { migrateToLatest } from '../server/db/migrate.js';
import { timeOrderedUuid } from '../server/domain/ids.js';
import { repoRoot, startChild } from './lib/processes.js';
import { freshDatabase, parseArgs } from './lib/database.js';
import { DEFAULT_BEFORE, buildBaseline } from './lib/baseline.js';

const args = parseArgs(process.argv);
const dialect = args.get('dialect') ?? 'sqlite';
const seconds = Number(args.get('seconds') ?? 10);
const warmup = Number(args.get('warmup') ?? 2);
const senders = Number(args.get('senders') ?? 4);
const batchSize = Number(args.get('batch') ?? 100);
const rounds = Number(args.get('rounds') ?? 1);
const beforeRef = args.get('before') ?? DEFAULT_BEFORE;
const PASSWORD = 'Bench-Sensors-Pass-1';
const SOURCES_PER_SENDER = 10;
const START = Date.UTC(2026, 0, 1);


/** The n-th batch of a sender: fresh (source, recorded_at) pairs, spread over its sources. */
function batchOf(sender: number, n: number) {
  return Array.from({ length: batchSize }, (_, i) => {
    const seq = n * batchSize + i;
    return {
      manufacturerId: `s${sender}-collar-${seq % SOURCES_PER_SENDER}`,
      recordedAt: START + seq * 1000,
      lat: -1.3 + (seq % 1000) / 1e5,
      lon: 36.8 + (seq % 777) / 1e5,
      subject: `S${sender} animal ${seq % SOURCES_PER_SENDER}`,
    };
  });
}

interface Run {
  observations: number;
  requests: number;
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
}

/**
 * What one measurement counts. Both the bare inserts and the intake first run for `--warmup`
 * seconds uncounted (a fresh server process, and the bench's own client, are still compiling:
 * the figure is the sustained rate), then for `--seconds` counted: requests that start
 * in the measured window count, and it ends when the last of them is answered. Everything
 * written in the warm-up is stored and checked too (`all`).
 */
class Tally {
  readonly from = Date.now() + warmup * 1000;
  readonly deadline = this.from + seconds * 1000;
  observations = 0;
  requests = 0;
  /** Acknowledged observations, warm-up included: what the database must hold at the end. */
  all = 0;
  readonly latencies: number[] = [];

  /** Whether a request starting now is measured (else it is warm-up). */
  measuring(): boolean {
    return Date.now() >= this.from;
  }

  record(measured: boolean, startedAt: bigint, observations: number): void {
    this.all += observations;
    if (!measured) return;
    this.observations += observations;
    this.requests++;
    this.latencies.push(Number(process.hrtime.bigint() - startedAt) / 1e6);
  }

  summary(): Run {
    const elapsed = (Date.now() - this.from) / 1000;
    const latencies = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
    return { observations: this.observations, requests: this.requests, seconds: elapsed, perSecond: this.observations / elapsed, latencyMs: { p50: at(0.5), p99: at(0.99) } };
  }
}

/**
 * The baseline: the batches' rows, INSERT ... ON CONFLICT DO NOTHING in a transaction, straight
 * into the database. `asStored`: the rows exactly as the server stores them (each carries its
 * source's subject, and the server's time-ordered id); otherwise as issue 6 first measured it
 * (random ids, no subjects): the yardstick of issue 17's target.
 */
async function bareInserts(asStored: boolean): Promise<Run & { inserted: number; stored: number }> {
  const newId = asStored ? () => timeOrderedUuid() : randomUUID;
  const db = await freshDatabase(dialect);
  const database = openDatabase(parseDatabase(db.location, path.dirname(db.location)));
  try {
    const { knex } = database;
    await migrateToLatest(knex);
    const tenantId = randomUUID();
    const providerId = randomUUID();
    const now = Date.now();
    await knex('tenants').insert({ id: tenantId, name: 'bench', created_at: now });
    await knex('sensor_providers').insert({ id: providerId, tenant_id: tenantId, provider_key: 'bench', provider_type: 'gps-radio', created_at: now, updated_at: now });
    const sources = new Map<string, { id: string; subjectId: string | null }>();
    for (let sender = 0; sender < senders; sender++) {
      for (let i = 0; i < SOURCES_PER_SENDER; i++) {
        const id = randomUUID();
        const subjectId = asStored ? randomUUID() : null;
        if (subjectId) await knex('subjects').insert({ id: subjectId, tenant_id: tenantId, name: `S${sender} animal ${i}`, subject_type: 'wildlife', subject_subtype: 'unassigned', is_active: true, additional: '{}', created_at: now, updated_at: now });
        sources.set(`s${sender}-collar-${i}`, { id, subjectId });
        await knex('sensor_sources').insert({ id, tenant_id: tenantId, provider_id: providerId, manufacturer_id: `s${sender}-collar-${i}`, source_type: 'tracking-device', subject_id: subjectId, created_at: now, updated_at: now });
      }
    }
    const tally = new Tally();
    await Promise.all(Array.from({ length: senders }, async (_, sender) => {
      for (let n = 0; Date.now() < tally.deadline; n++) {
        const measured = tally.measuring();
        const t0 = process.hrtime.bigint();
        const rows = batchOf(sender, n).map((o) => ({
          id: newId(), tenant_id: tenantId, source_id: sources.get(o.manufacturerId)!.id, subject_id: sources.get(o.manufacturerId)!.subjectId, recorded_at: o.recordedAt,
          latitude: o.lat, longitude: o.lon, additional: '{}', created_at: Date.now(),
        }));
        const created = await knex.transaction((trx) => trx('observations').insert(rows).onConflict(['source_id', 'recorded_at']).ignore().returning('id'));
        tally.record(measured, t0, created.length);
      }
    }));
    const run = tally.summary();
    const row = await knex('observations').count({ n: '*' }).first();
    return { ...run, inserted: tally.all, stored: Number(row?.n ?? 0) };
  } finally {
    await database.close();
    await db.drop();
  }
}

/** Through the server: HTTP, JSON, validation, sources, subjects, status, one transaction a batch. */
async function intake(bin: string) {
  const db = await freshDatabase(dialect);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-data-'));
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' };
  const child = await startChild([bin, 'serve', '--port', '0'], env, /listening on (http:\/\/\S+)/);
  let stopped: Promise<void> | null = null;
  const stopServer = () => (stopped ??= child.stop());
  const origin = child.match[1]!;
  try {
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const pool = new Pool(origin, { connections: senders, pipelining: 1 });
    const statuses: Record<number, number> = {};
    const tally = new Tally();
    let retries = 0;
    const problems: string[] = [];
    /** One request; `created` is what a 2xx answer says was new, -1 for anything else. */
    const send = async (sender: number, n: number) => {
      const body = JSON.stringify(batchOf(sender, n).map((o) => ({ manufacturer_id: o.manufacturerId, recorded_at: new Date(o.recordedAt).toISOString(), location: { lat: o.lat, lon: o.lon }, subject_name: o.subject })));
      const measured = tally.measuring();
      const t0 = process.hrtime.bigint();
      const response = await pool.request({ method: 'POST', path: '/sensors/gps-radio/bench-collars/status', headers, body });
      const text = await response.body.text();
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      const created = response.statusCode < 300 ? (JSON.parse(text) as { data: { created: number } }).data.created : -1;
      tally.record(measured, t0, Math.max(created, 0));
      return { status: response.statusCode, created };
    };
    await Promise.all(Array.from({ length: senders }, async (_, sender) => {
      for (let n = 0; Date.now() < tally.deadline; n++) {
        const fresh = await send(sender, n);
        if (fresh.status !== 201 || fresh.created !== batchSize) problems.push(`sender ${sender} batch ${n}: ${fresh.status} created ${fresh.created}`);
        if (n % 10 === 9) {
          const retry = await send(sender, n);
          retries++;
          if (retry.status !== 200 || retry.created !== 0) problems.push(`sender ${sender} retry of ${n}: ${retry.status} created ${retry.created}`);
        }
      }
    }));
    const run = tally.summary();
    await pool.close();
    // Graceful: the server finishes in-flight requests and closes the database first.
    await stopServer();
    const knex = dialect === 'sqlite' ? knexFactory({ client: 'better-sqlite3', connection: { filename: db.location }, useNullAsDefault: true }) : knexFactory({ client: 'pg', connection: db.location });
    const counted = await knex('observations').count({ n: '*' }).first();
    const distinct = await knex.from(knex('observations').distinct('source_id', 'recorded_at').as('d')).count({ n: '*' }).first();
    await knex.destroy();
    return { ...run, acknowledged: tally.all, retries, statuses, problems, stored: Number(counted?.n ?? 0), distinct: Number(distinct?.n ?? 0) };
  } finally {
    await stopServer();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  }
}

type Served = Awaited<ReturnType<typeof intake>>;
type Bare = Awaited<ReturnType<typeof bareInserts>>;
const baseline = beforeRef === 'none' ? null : buildBaseline(beforeRef);
const builds = [...(baseline ? [{ name: `before (${baseline.commit.slice(0, 9)})`, bin: baseline.bin }] : []), { name: 'after (this tree)', bin: path.join(repoRoot, 'bin/fieldops.js') }];
/** The two baselines: as issue 6 measured it (the target's yardstick), and the rows exactly as the server stores them. */
const BARES = [
  { key: 'as issued', label: 'bare insert as issue 6 measured it (random ids, no subjects)', asStored: false },
  { key: 'as stored', label: 'bare insert of the rows as the server stores them (its ids, subjects)', asStored: true },
] as const;
const results: Array<{ round: number; bare: Record<string, Bare>; served: Array<{ name: string; run: Served }> }> = [];
for (let round = 1; round <= rounds; round++) {
  const bare: Record<string, Bare> = {};
  for (const { key, asStored } of BARES) {
    process.stderr.write(`round ${round}: bare inserts (${key}) on ${dialect} (${senders} writers, batches of ${batchSize}, ${seconds}s)...\n`);
    bare[key] = await bareInserts(asStored);
  }
  const served: Array<{ name: string; run: Served }> = [];
  // Alternate the order between rounds so neither build always runs on a warmer machine.
  for (const build of round % 2 === 1 ? builds : [...builds].reverse()) {
    process.stderr.write(`round ${round}: intake through fieldops ${build.name} on ${dialect}...\n`);
    served.push({ name: build.name, run: await intake(build.bin) });
  }
  results.push({ round, bare, served });
}

console.log(`\nSensor intake on ${dialect}: ${senders} concurrent senders, batches of ${batchSize}, ${seconds}s each after ${warmup}s of warm-up, ${rounds} round(s) (${os.cpus().length} cores)\n`);
console.log(`| round | measurement | observations/s | batches/s | p50 ms | p99 ms | observations measured | stored (warm-up too) | lost | duplicated | ratio to bare (${BARES.map((b) => b.key).join(' / ')}) |`);
console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
let ok = true;
const ratios = new Map<string, number[]>();
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
for (const { round, bare, served } of results) {
  const line = (name: string, run: Run, stored: number, lost: number | string, duplicated: number | string, ratio: string) =>
    console.log(`| ${round} | ${name} | ${Math.round(run.perSecond)} | ${(run.requests / run.seconds).toFixed(1)} | ${run.latencyMs.p50} | ${run.latencyMs.p99} | ${run.observations} | ${stored} | ${lost} | ${duplicated} | ${ratio} |`);
  for (const { key, label } of BARES) {
    line(label, bare[key]!, bare[key]!.stored, bare[key]!.inserted - bare[key]!.stored, '', BARES.map((b) => percent(bare[key]!.perSecond / bare[b.key]!.perSecond)).join(' / '));
    if (bare[key]!.stored !== bare[key]!.inserted) ok = false;
  }
  for (const { name, run } of served) {
    const lost = run.acknowledged - run.stored;
    const duplicated = run.stored - run.distinct;
    if (lost !== 0 || duplicated !== 0 || run.problems.length > 0) ok = false;
    for (const { key } of BARES) ratios.set(`${name}, over the bare insert (${key})`, [...(ratios.get(`${name}, over the bare insert (${key})`) ?? []), run.perSecond / bare[key]!.perSecond]);
    line(`fieldops intake ${name}`, run, run.stored, lost, duplicated, BARES.map((b) => percent(run.perSecond / bare[b.key]!.perSecond)).join(' / '));
    for (const problem of run.problems.slice(0, 5)) console.log(`problem: ${problem}`);
  }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
console.log('');
for (const [name, values] of ratios) console.log(`ratio fieldops / bare, ${name}: ${percent(median(values))} (median of ${values.length})`);
console.log(`retried batches answered 200 with nothing stored; lost and duplicated counted after each run: ${ok ? 'OK' : 'FAILED'}`);

const outDir = path.join(repoRoot, 'bench/results');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(
  path.join(outDir, `sensors-${dialect}.json`),
  JSON.stringify({ dialect, senders, batchSize, seconds, rounds, cores: os.cpus().length, before: baseline?.commit ?? null, results: results.map((r) => ({ ...r, served: r.served.map(({ name, run: { problems, ...run } }) => ({ name, ...run, problems: problems.length })) })), ratios: Object.fromEntries([...ratios].map(([k, v]) => [k, median(v)])), ok, at: new Date().toISOString() }, null, 2),
);
if (!ok) process.exitCode = 1;
