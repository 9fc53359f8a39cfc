/**
 * Tracks and tracking-export benchmark (issue 27): a subject's track of 100,000 positions over
 * 30 days (target under 1 s), and `trackingdata/export` of every observation, 1,000,000 by
 * default (targets: server RSS under 200 MB, under 60 s), with the latency of a small request
 * (`status`) sent every 100 ms during the export against its idle latency (the event loop
 * stays free). Seeded straight into the database in batch inserts (one subject with the
 * 100,000-position track, the rest spread over other subjects), each source assigned from the
 * beginning of time; the server runs as its own process (`fieldops serve`), its RSS read from
 * /proc every 50 ms during the export, which runs first on the fresh server. Prints a table per database and writes the JSON beside it.
 *
 *   node dist/bench/tracks.js [--dialect sqlite|postgres|both] [--observations 1000000] [--track 100000] [--runs 5]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { timeOrderedUuid } from '../server/domain/ids.js';
import { repoRoot, startChild } from './lib/processes.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';

const args = parseArgs(process.argv);
const dialects = (args.get('dialect') ?? 'both') === 'both' ? ['sqlite', 'postgres'] : [args.get('dialect')!];
const total = Number(args.get('observations') ?? 1_000_000);
const trackSize = Math.min(Number(args.get('track') ?? 100_000), total);
const runs = Number(args.get('runs') ?? 5);
const PASSWORD = 'Bench-Tracks-Pass-1';
const DAY = 86_400_000;
const OTHERS = 90;
/** Rows per INSERT: SQLite's compound SELECT (knex's multi-row insert there) holds at most 500 terms. */
const batchFor = (dialect: string) => (dialect === 'sqlite' ? 450 : 2000);

function knexFor(dialect: string, location: string): Knex {
  return dialect === 'sqlite' ? knexFactory({ client: 'better-sqlite3', connection: { filename: location }, useNullAsDefault: true }) : knexFactory({ client: 'pg', connection: location });
}

/** One subject with `trackSize` fixes over the last 30 days; the rest over OTHERS subjects, the same 30 days. */
async function seed(knex: Knex, dialect: string, now: number): Promise<{ trackSubject: string }> {
  const BATCH = batchFor(dialect);
  const { id: tenantId } = await knex('tenants').where({ name: 'default' }).first('id');
  const providerId = randomUUID();
  await knex('sensor_providers').insert({ id: providerId, tenant_id: tenantId, provider_key: 'bench-tracks', provider_type: 'gps-radio', created_at: now, updated_at: now });
  const counts = [trackSize, ...Array.from({ length: OTHERS }, (_, i) => Math.floor((total - trackSize) / OTHERS) + (i < (total - trackSize) % OTHERS ? 1 : 0))];
  let trackSubject = '';
  for (const [index, count] of counts.entries()) {
    const subjectId = randomUUID();
    const sourceId = randomUUID();
    if (index === 0) trackSubject = subjectId;
    await knex('subjects').insert({ id: subjectId, tenant_id: tenantId, name: `Bench subject ${index}`, subject_type: 'wildlife', subject_subtype: 'elephant', is_active: true, additional: '{}', created_at: now, updated_at: now });
    await knex('sensor_sources').insert({ id: sourceId, tenant_id: tenantId, provider_id: providerId, manufacturer_id: `bench-collar-${index}`, source_type: 'tracking-device', subject_id: subjectId, created_at: now, updated_at: now });
    await knex('subject_sources').insert({ id: randomUUID(), tenant_id: tenantId, subject_id: subjectId, source_id: sourceId, range_lower: 0, range_upper: null, additional: '{}', created_at: now, updated_at: now });
    if (count === 0) continue;
    const step = (30 * DAY) / count;
    const start = now - 30 * DAY;
    await knex.transaction(async (trx) => {
      for (let i = 0; i < count; i += BATCH) {
        const rows = Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => {
          const n = i + j;
          return {
            id: timeOrderedUuid(), tenant_id: tenantId, source_id: sourceId, subject_id: subjectId, recorded_at: Math.floor(start + n * step),
            latitude: -1.3 + (n % 1000) / 1e4, longitude: 36.8 + (n % 777) / 1e4, additional: '{"battery":87}', created_at: now,
          };
        });
        await trx('observations').insert(rows);
      }
    });
    const last = Math.floor(start + (count - 1) * step);
    await knex('subject_status').insert({ subject_id: subjectId, tenant_id: tenantId, source_id: sourceId, recorded_at: last, latitude: -1.3, longitude: 36.8, updated_at: now });
  }
  return { trackSubject };
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function timed(run: () => Promise<void>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function measure(dialect: string) {
  const db = await freshDatabase(dialect);
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDirFor(db.location), FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' };
  const child = await startChild([path.join(repoRoot, 'bin/fieldops.js'), 'serve', '--port', '0'], env, /listening on (http:\/\/\S+)/);
  const origin = child.match[1]!;
  const pid = child.child.pid!;
  const knex = knexFor(dialect, db.location);
  try {
    const seedMs = await timed(async () => void (await seed(knex, dialect, Date.now())));
    const { trackSubject } = { trackSubject: (await knex('subjects').where({ name: 'Bench subject 0' }).first('id')).id as string };
    if (dialect === 'postgres') await knex.raw('ANALYZE');
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const headers = { Authorization: `Bearer ${token}` };

    const ping = async () => timed(async () => void (await (await fetch(`${origin}/api/v1.0/status`, { headers })).arrayBuffer()));
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) idle.push(await ping());

    // The export, with RSS sampled and a small request every 100 ms.
    const rssBefore = rssMb(pid);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    const during: number[] = [];
    let exporting = true;
    const pinger = (async () => {
      while (exporting) {
        during.push(await ping());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let bytes = 0;
    let lines = 0;
    const exportMs = await timed(async () => {
      const response = await fetch(`${origin}/api/v1.0/trackingdata/export?include_inactive=true`, { headers });
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        for (const byte of chunk) if (byte === 10) lines++;
      }
    });
    exporting = false;
    await pinger;
    clearInterval(sampler);
    // After the export, so that its RSS is the export's own (a 100,000-point body grows the heap for good).
    // Tracks: the 100,000 positions of the last 30 days (plus a margin), whole body read.
    const since = encodeURIComponent(new Date(Date.now() - 31 * DAY).toISOString());
    let points = 0;
    const trackMs: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const ms = await timed(async () => {
        const body = (await (await fetch(`${origin}/api/v1.0/subject/${trackSubject}/tracks?since=${since}`, { headers })).json()) as { features: Array<{ properties: { coordinateProperties: { times: string[] } } }> };
        points = body.features[0]!.properties.coordinateProperties.times.length;
      });
      if (i > 0) trackMs.push(ms); // the first warms the process up
    }

    return {
      dialect, observations: total, seedSeconds: round(seedMs / 1000),
      track: { points, medianMs: round(median(trackMs)), maxMs: round(Math.max(...trackMs)) },
      export: { rows: lines - 1, megabytes: round(bytes / 1e6), seconds: round(exportMs / 1000, 2), rssBeforeMb: round(rssBefore), rssPeakMb: round(peak) },
      latencyMs: { idleP50: round(median(idle)), duringP50: round(median(during)), duringP99: round(quantile(during, 0.99)), duringMax: round(Math.max(...during)), samples: during.length },
    };
  } finally {
    await knex.destroy();
    await child.stop();
    await db.drop();
  }
}

const results = [];
for (const dialect of dialects) {
  process.stderr.write(`${dialect}: seeding ${total} observations, then measuring...\n`);
  results.push(await measure(dialect));
}
const rows = results.map((r) => `| ${r.dialect.padEnd(8)} | ${String(r.track.points).padStart(7)} | ${String(r.track.medianMs).padStart(9)} | ${String(r.export.rows).padStart(9)} | ${String(r.export.seconds).padStart(8)} | ${String(r.export.rssPeakMb).padStart(8)} | ${`${r.latencyMs.idleP50} / ${r.latencyMs.duringP50} / ${r.latencyMs.duringP99} / ${r.latencyMs.duringMax}`.padStart(24)} |`);
process.stdout.write([
  `Tracks and tracking export (${total} observations; targets: track < 1000 ms, export < 60 s and RSS < 200 MB, other requests keep their latency)`,
  '| database | points  | track ms  | rows      | export s | RSS MB   | status ms idle/p50/p99/max |',
  '|----------|---------|-----------|-----------|----------|----------|--------------------------|',
  ...rows,
].join('\n') + '\n');
const out = path.join(os.tmpdir(), `fieldops-bench-tracks-${Date.now()}.json`);
fs.writeFileSync(out, JSON.stringify(results, null, 2));
process.stdout.write(`JSON: ${out}\n`);
