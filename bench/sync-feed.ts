/**
 * Sync change feed benchmark (issue 25): the issue's targets, measured. Against a real
 * `fieldops serve` child on SQLite or PostgreSQL, seeded by bulk SQL before it starts (the
 * server's one-time backfill then logs the records; the feed answers 503 sync_preparing until
 * it is done):
 * - first pull of `--types` event types and `--events` events (all in the default scope): requests,
 *   bytes on the wire, time; the older pull (catalog sync + updated_since pull) on the same data;
 * - a renamed event type, then a pull: bytes (and what the older catalog sync re-read);
 * - a pull with nothing new: requests and records;
 * - the cost of pulling 10 changes, at `--events` and after the tenant grew to `--big-events`
 *   (history outside the laptop's 30-day window; `--big 0` skips this part);
 * - a laptop scoped to one team of `--team` subjects: records pulled vs the server's count;
 * - the feed's read rate (changes/s, pages of 1000) and the mirror's apply rate (records/s).
 * Prints the issue's targets next to the measured values and writes
 * bench/results/sync-feed-<dialect>.json.
 *
 *   node dist/bench/sync-feed.js --dialect sqlite|postgres [--types 2000] [--events 20000] [--big 1] [--big-events 200000] [--team 50]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scopeKeys } from '../sync/feed/scopes.js';
import { createUndiciTransport } from '../sync/transport.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';
import { repoRoot, startChild } from './lib/processes.js';
import { applyPages, feedPull, mirrorRecords, olderCatalogSync, olderPull, readFeed, waitForFeed, type Server, type Wire } from './lib/sync-measure.js';
import { analyzeWhileBackfilling, logRows, pendBackfill, settleDatabase, seedContext, seedEvents, seedEventTypes, seedKnex, seedTeam, serverScopeCount } from './lib/sync-seed.js';
import { printReport, type Row } from './lib/sync-report.js';

const args = parseArgs(process.argv);
const DIALECT = args.get('dialect') ?? 'sqlite';
const TYPES = Number(args.get('types') ?? 2000);
const EVENTS = Number(args.get('events') ?? 20000);
const BIG = (args.get('big') ?? '1') !== '0';
const BIG_EVENTS = Number(args.get('big-events') ?? 200000);
const TEAM = Number(args.get('team') ?? 50);
const ROUNDS = 5;
const PASSWORD = 'Bench-Sync-Feed-Pass-7';
const bin = path.join(repoRoot, 'bin/fieldops.js');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const log = (message: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function main() {
  if (DIALECT !== 'sqlite' && DIALECT !== 'postgres') throw new Error('--dialect sqlite|postgres');
  const db = await freshDatabase(DIALECT);
  const dataDir = dataDirFor(db.location);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-feed-'));
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn', FIELDOPS_PATROL_SWEEP_SECONDS: '0' };
  // The restart after the growth keeps the port: the laptop's mirror belongs to one server URL.
  const start = (port = '0') => startChild([bin, 'serve', '--port', port], env, /listening on (http:\/\/\S+)/);
  const transport = createUndiciTransport({ timeoutMs: 120_000 });
  const knex = seedKnex(db.location);
  let serve = await start();
  try {
    await serve.stop();
    const ctx = await seedContext(knex);
    let started = process.hrtime.bigint();
    const types = await seedEventTypes(knex, ctx, TYPES);
    const events = await seedEvents(knex, ctx, { count: EVENTS, types, newestDaysAgo: 0, spanDays: 25 });
    const team = await seedTeam(knex, ctx, TEAM, events, TEAM * 10);
    await pendBackfill(knex, ctx);
    log(`seeded ${TYPES} types, ${EVENTS} events, a team of ${TEAM} in ${Math.round(Number(process.hrtime.bigint() - started) / 1e6)} ms`);
    started = process.hrtime.bigint();
    serve = await start();
    const login = async (origin: string): Promise<Server> => {
      const answer = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
      return { origin, token: ((await answer.json()) as { access_token: string }).access_token, transport };
    };
    let server = await login(serve.match[1]!);
    // From the server's start (it may backfill before it listens) until the feed answers.
    const backfillMs = Number(process.hrtime.bigint() - started) / 1e6 + (await waitForFeed(server, 600_000, analyzeWhileBackfilling(knex)));
    log(`backfill done ${Math.round(backfillMs)} ms after the start (${await logRows(knex, ctx)} log rows)`);
    const api = async (method: string, route: string, body: unknown) => {
      const response = await fetch(server.origin + route, { method, headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (response.status >= 400) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };

    const laptop = path.join(work, 'laptop.sqlite3');
    const first = await feedPull(server, laptop);
    log(`first pull: ${first.requests} requests, ${first.bytes} B, ${Math.round(first.ms)} ms, ${first.report.received} changes, checkpoint ${first.report.checkpoint}`);
    const older = path.join(work, 'older.sqlite3');
    const olderFirst = await olderPull(server, older);
    log(`older pull: ${olderFirst.requests} requests, ${olderFirst.bytes} B, ${Math.round(olderFirst.ms)} ms`);
    const idle = await feedPull(server, laptop);
    const olderIdle = await olderPull(server, older);

    await api('PATCH', `/api/v2.0/activity/eventtypes/${types[7]}`, { display: 'Renamed bench type' });
    const renamed = await feedPull(server, laptop);
    const olderRenamed = await olderCatalogSync(server, older);

    const tenChanges = async (round: number): Promise<Wire & { received: number }> => {
      for (let i = 0; i < 10; i++) await api('PATCH', `/api/v1.0/activity/events/${events[(round * 10 + i) * 97 % events.length]}`, { title: `Changed in round ${round}` });
      const pulled = await feedPull(server, laptop);
      return { ...pulled, received: pulled.report.received };
    };
    await settleDatabase(knex);
    const small: Array<Wire & { received: number }> = [];
    // Round 0 warms up (untimed): the same for both sizes, the server having just restarted for the second.
    await tenChanges(0);
    for (let round = 1; round <= ROUNDS; round++) small.push(await tenChanges(round));

    const teamMirror = path.join(work, 'team.sqlite3');
    const teamPull = await feedPull(server, teamMirror, { scopes: [`team:${team.groupId}`] });
    const teamServer = await serverScopeCount(knex, ctx, teamPull.report.granted);
    const teamHeld = await mirrorRecords(teamMirror);
    log(`team pull: ${teamPull.report.received} changes, server counts ${teamServer}, mirror holds ${teamHeld}`);

    const keys = scopeKeys([], Date.now(), null);
    const reads = [await readFeed(server, keys, 1000), await readFeed(server, keys, 1000)];
    const read = reads.reduce((best, r) => (r.ms < best.ms ? r : best));
    const applied = await applyPages(path.join(work, 'apply.sqlite3'), read.pages);
    log(`read ${read.changes} changes in ${Math.round(read.ms)} ms; applied ${applied.records} in ${Math.round(applied.ms)} ms`);

    let big: { small: Array<Wire & { received: number }>; catchUp: Wire & { received: number }; backfillMs: number } | null = null;
    if (BIG && BIG_EVENTS > EVENTS) {
      await serve.stop();
      started = process.hrtime.bigint();
      await seedEvents(knex, ctx, { count: BIG_EVENTS - EVENTS, types, newestDaysAgo: 40, spanDays: 300 });
      await pendBackfill(knex, ctx);
      log(`seeded ${BIG_EVENTS - EVENTS} more events (older than the laptop's window) in ${Math.round(Number(process.hrtime.bigint() - started) / 1e6)} ms`);
      started = process.hrtime.bigint();
      serve = await start(new URL(server.origin).port);
      server = await login(serve.match[1]!);
      const bigBackfill = Number(process.hrtime.bigint() - started) / 1e6 + (await waitForFeed(server, 1_800_000, analyzeWhileBackfilling(knex)));
        log(`backfill done ${Math.round(bigBackfill)} ms after the start (${await logRows(knex, ctx)} log rows)`);
      const catchUp = await feedPull(server, laptop);
      log(`catch-up pull after the growth: ${catchUp.report.received} changes in ${catchUp.requests} requests${catchUp.report.resets.length ? `; reset: ${catchUp.report.resets.join('; ')}` : ''}`);
      await settleDatabase(knex);
      const bigSmall: Array<Wire & { received: number }> = [];
      await tenChanges(ROUNDS + 1);
      for (let round = ROUNDS + 2; round <= ROUNDS * 2 + 1; round++) bigSmall.push(await tenChanges(round));
      big = { small: bigSmall, catchUp: { ...catchUp, received: catchUp.report.received }, backfillMs: bigBackfill };
    }

    const smallMs = median(small.map((s) => s.ms));
    const smallBytes = median(small.map((s) => s.bytes));
    const bigMs = big ? median(big.small.map((s) => s.ms)) : null;
    const bigBytes = big ? median(big.small.map((s) => s.bytes)) : null;
    const rows: Row[] = [
      { metric: 'first pull: requests', target: '≤ 45', check: 'max', targetValue: 45, measured: first.requests, baseline: olderFirst.requests },
      { metric: 'first pull: bytes on the wire', target: '≤ 4 MB', check: 'max', targetValue: 4_000_000, measured: first.bytes, baseline: olderFirst.bytes, unit: 'bytes' },
      { metric: 'first pull: time', target: '-', targetValue: null, measured: first.ms, baseline: olderFirst.ms, unit: 'ms' },
      { metric: 'first pull: records', target: `${TYPES + EVENTS}+`, targetValue: null, measured: first.report.received, baseline: olderFirst.records },
      { metric: 'renamed type: bytes', target: '≤ 5 kB', check: 'max', targetValue: 5_000, measured: renamed.bytes, baseline: olderRenamed.bytes, unit: 'bytes' },
      { metric: 'renamed type: changes', target: '1', check: 'eq', targetValue: 1, measured: renamed.report.received, baseline: null },
      { metric: 'nothing new: requests', target: '1', check: 'eq', targetValue: 1, measured: idle.requests, baseline: olderIdle.requests },
      { metric: 'nothing new: records', target: '0', check: 'eq', targetValue: 0, measured: idle.report.received, baseline: olderIdle.records },
      { metric: `10 changes at ${EVENTS} events: time`, target: '-', targetValue: null, measured: smallMs, baseline: null, unit: 'ms' },
      { metric: `10 changes at ${EVENTS} events: bytes`, target: '-', targetValue: null, measured: smallBytes, baseline: null, unit: 'bytes' },
      ...(big
        ? [
            { metric: `10 changes at ${BIG_EVENTS} events: time`, target: `≈ ${Math.round(smallMs)} ms`, check: 'approx' as const, targetValue: smallMs, measured: bigMs!, baseline: null, unit: 'ms' as const },
            { metric: `10 changes at ${BIG_EVENTS} events: bytes`, target: `≈ ${smallBytes} B`, check: 'approx' as const, targetValue: smallBytes, measured: bigBytes!, baseline: null, unit: 'bytes' as const },
          ]
        : []),
      { metric: `team of ${TEAM}: records pulled`, target: `= server count ${teamServer}`, check: 'eq', targetValue: teamServer, measured: teamPull.report.received, baseline: null },
      { metric: `team of ${TEAM}: records held`, target: `= server count ${teamServer}`, check: 'eq', targetValue: teamServer, measured: teamHeld, baseline: null },
      { metric: 'feed read rate (limit 1000)', target: '≥ 20000/s (PG)', check: 'min', targetValue: 20_000, measured: read.changes / (read.ms / 1000), baseline: null, unit: '/s' },
      { metric: 'mirror apply rate', target: '≥ 5000/s', check: 'min', targetValue: 5_000, measured: applied.records / (applied.ms / 1000), baseline: null, unit: '/s' },
    ];
    printReport(`Sync change feed, ${DIALECT}: ${TYPES} event types, ${EVENTS} events, a team of ${TEAM} (${os.cpus().length} CPUs, Node ${process.version})`, rows);
    const out = path.join(repoRoot, 'bench', 'results', `sync-feed-${DIALECT}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const wire = (w: Wire) => ({ requests: w.requests, bytes: w.bytes, ms: Math.round(w.ms) });
    fs.writeFileSync(out, JSON.stringify({
      dialect: DIALECT, types: TYPES, events: EVENTS, team: TEAM, node: process.version, cpus: os.cpus().length, backfillMs: Math.round(backfillMs),
      rows,
      detail: {
        first: { ...wire(first), received: first.report.received, pages: first.report.pages, checkpoint: first.report.checkpoint },
        older: { first: { ...wire(olderFirst), records: olderFirst.records }, idle: { ...wire(olderIdle), records: olderIdle.records }, renamedCatalogSync: wire(olderRenamed) },
        idle: { ...wire(idle), received: idle.report.received, checkpoint: idle.report.checkpoint },
        renamed: { ...wire(renamed), received: renamed.report.received },
        tenChanges: small.map((s) => ({ ...wire(s), received: s.received })),
        big: big && { events: BIG_EVENTS, backfillMs: Math.round(big.backfillMs), catchUp: { ...wire(big.catchUp), received: big.catchUp.received }, tenChanges: big.small.map((s) => ({ ...wire(s), received: s.received })) },
        team: { group: team.groupId, granted: teamPull.report.granted.length, received: teamPull.report.received, held: teamHeld, server: teamServer, ...wire(teamPull) },
        read: { changes: read.changes, pages: read.pages.length, ms: Math.round(read.ms) },
        apply: { records: applied.records, ms: Math.round(applied.ms) },
      },
    }, null, 2) + '\n');
    console.log(`\nwritten ${path.relative(process.cwd(), out)}`);
  } finally {
    if (serve.child.exitCode === null && serve.child.signalCode === null) await serve.stop();
    await knex.destroy();
    await transport.close();
    await db.drop();
    fs.rmSync(work, { recursive: true, force: true });
    if (/^postgres/i.test(db.location)) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
