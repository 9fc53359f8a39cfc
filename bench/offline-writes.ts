/**
 * Offline writes over a poor link (issue 26's targets), against a real `fieldops serve` child and
 * the real `fieldops` binary, on SQLite or PostgreSQL:
 * 1. 5,000 queued events pushed through a link proxy adding 600 ms of round trip, against one
 *    request per record over the same link (measured on `--baseline` records and scaled).
 *    Target: push time <= 10% of the one-by-one time.
 * 2. A 40 MiB photo attached offline and pushed over a link cut at 25%, 50% and 75% of the
 *    upload. Uplink bytes are counted at the proxy. Target: <= 45 MiB.
 * 3. 10,000 CSV rows imported and pushed (no added latency), against the same rows POSTed one by
 *    one directly. Target: push at least 2x faster.
 * Prints a table and writes bench/results/offline-writes-<dialect>.json.
 *
 *   node dist/bench/offline-writes.js [--dialect sqlite|postgres] [--events 5000] [--baseline 200]
 *     [--rtt 600] [--photo-mib 40] [--rows 10000]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TransportRequest } from '../sync/http.js';
import { createUndiciTransport } from '../sync/transport.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';
import { startLinkProxy, type LinkProxy } from './lib/link-proxy.js';
import { repoRoot, startChild } from './lib/processes.js';

const args = parseArgs(process.argv);
const DIALECT = args.get('dialect') ?? 'sqlite';
const EVENTS = Number(args.get('events') ?? 5_000);
const BASELINE = Number(args.get('baseline') ?? 200);
const RTT_MS = Number(args.get('rtt') ?? 600);
const PHOTO_MIB = Number(args.get('photo-mib') ?? 40);
const ROWS = Number(args.get('rows') ?? 10_000);
const PASSWORD = 'Bench-Offline-Writes-Passphrase-7';
const MIB = 1024 * 1024;
const bin = path.join(repoRoot, 'bin/fieldops.js');
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

interface Row {
  case: string;
  measured: string;
  baseline: string;
  ratio: number;
  target: string;
  met: boolean;
}

function csv(rows: number, startMs: number): string {
  const lines = ['time,latitude,longitude,priority,state,notes,species'];
  for (let i = 0; i < rows; i++) lines.push(`${new Date(startMs + i * 60_000).toISOString()},${(-1.2 - i / 1e5).toFixed(6)},${(36.8 + i / 1e5).toFixed(6)},100,new,"sighting ${i}",${i % 2 ? 'lion' : 'elephant'}`);
  return lines.join('\n') + '\n';
}

/** A private home for one `fieldops` user (its own config and mirror). */
function cliHome(dir: string, name: string) {
  const home = path.join(dir, name);
  fs.mkdirSync(home, { recursive: true });
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data'), FIELDOPS_RETRY_DELAY_MS: '50' };
  const run = (argv: string[], input?: string) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...argv], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
  const must = async (argv: string[], input?: string) => {
    const result = await run(argv, input);
    if (result.code !== 0) throw new Error(`fieldops ${argv.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
    return result;
  };
  return { run, must, login: (server: string) => must(['login', '--server', server, '--username', 'admin', '--password-stdin'], PASSWORD + '\n') };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-writes-'));
  const database = await freshDatabase(DIALECT);
  const server = await startChild(
    [bin, 'serve', '--port', '0'],
    { DATABASE_URL: database.location, FIELDOPS_DATA_DIR: dataDirFor(database.location), FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn' },
    /listening on (http:\/\/\S+)/,
  );
  const origin = server.match[1]!;
  const target = new URL(origin);
  const proxies: LinkProxy[] = [];
  const undici = createUndiciTransport({ timeoutMs: 120_000 });
  const rows: Row[] = [];
  try {
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const post = async (base: string, url: string, body: unknown) => {
      const response = await undici({ method: 'POST', url: base + url, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) } as TransportRequest);
      if (response.status !== 201) throw new Error(`${url}: ${response.status} ${new TextDecoder().decode(response.body)}`);
    };
    for (const [value, display] of [['elephant', 'Elephant'], ['lion', 'Lion']]) await post(origin, '/api/v2.0/choices', { field: 'species', value, display });
    await post(origin, '/api/v2.0/activity/eventcategories', { value: 'monitoring', display: 'Monitoring' });
    await post(origin, '/api/v2.0/activity/eventtypes', {
      value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point',
      schema: {
        json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: { notes: { type: 'string', maxLength: 500 }, species: { type: 'string', anyOf: [{ $ref: '/api/v2.0/schemas/choices.json?field=species' }] } } },
        ui: { fields: { notes: { type: 'TEXT', parent: 'main' }, species: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', parent: 'main', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['species'] } } }, sections: { main: { label: 'Main', columns: 1, isActive: true, leftColumn: [{ name: 'notes', type: 'field' }, { name: 'species', type: 'field' }], rightColumn: [] } }, order: ['main'], headers: {} },
      },
    });
    for (let i = 0; i < 50; i++) await post(origin, '/api/v1.0/activity/events', { event_type: 'wildlife_sighting', time: new Date().toISOString(), event_details: { notes: 'warm-up', species: 'lion' } });
    const sighting = (i: number) => ({ id: randomUUID(), event_type: 'wildlife_sighting', time: new Date(Date.UTC(2026, 9, 1) + i * 60_000).toISOString(), priority: 100, state: 'new', location: { latitude: -1.2, longitude: 36.8 }, event_details: { notes: `direct ${i}`, species: 'lion' } });

    // 1. Queued events over a 600 ms link.
    const slow = await startLinkProxy({ host: target.hostname, port: Number(target.port) }, { roundTripMs: RTT_MS });
    proxies.push(slow);
    let started = process.hrtime.bigint();
    for (let i = 0; i < BASELINE; i++) await post(slow.origin, '/api/v1.0/activity/events', sighting(i));
    const oneByOne = (seconds(started) * EVENTS) / BASELINE;
    const field = cliHome(dir, 'field');
    await field.login(slow.origin);
    await field.must(['pull']);
    const sheet = path.join(dir, 'queued.csv');
    fs.writeFileSync(sheet, csv(EVENTS, Date.UTC(2026, 8, 1)));
    await field.must(['events', 'import', sheet, '--type', 'wildlife_sighting']);
    started = process.hrtime.bigint();
    await field.must(['push']);
    const pushed = seconds(started);
    const ratio1 = pushed / oneByOne;
    rows.push({ case: `${EVENTS} queued events, ${RTT_MS} ms RTT`, measured: `${pushed.toFixed(1)} s push`, baseline: `${oneByOne.toFixed(0)} s one by one (${BASELINE} measured)`, ratio: round(ratio1), target: '<= 0.10', met: ratio1 <= 0.1 });

    // 2. A photo over a link cut three times.
    // No added delay here: with an unlimited local link, delayed bytes would be counted and lost
    // at each cut by the hundred megabytes per second; a field link's bytes in flight are few.
    const cut = await startLinkProxy({ host: target.hostname, port: Number(target.port) });
    proxies.push(cut);
    const photographer = cliHome(dir, 'photo');
    await photographer.login(cut.origin);
    await photographer.must(['pull']);
    const photo = path.join(dir, 'photo.jpg');
    const bytes = Buffer.alloc(PHOTO_MIB * MIB);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
    fs.writeFileSync(photo, bytes);
    await photographer.must(['events', 'new', '--type', 'wildlife_sighting', '--details', JSON.stringify({ notes: 'photo', species: 'lion' }), '--location', '-1.2,36.8', '--file', photo]);
    const upBefore = cut.bytesUp;
    const cutsAt = [0.25, 0.5, 0.75].map((share) => upBefore + Math.round(share * bytes.length));
    let next = 0;
    cut.cutAfterUp(cutsAt[next]!);
    const watcher = setInterval(() => {
      if (cut.cuts > next && next < cutsAt.length - 1) cut.cutAfterUp(cutsAt[++next]!);
    }, 5);
    let attempts = 0;
    let done = false;
    started = process.hrtime.bigint();
    while (!done && attempts < 10) {
      attempts++;
      const result = await photographer.run(['push']);
      done = result.code === 0;
    }
    clearInterval(watcher);
    const photoSeconds = seconds(started);
    const uplink = (cut.bytesUp - upBefore) / MIB;
    if (!done) throw new Error('the photo push did not finish in 10 attempts');
    rows.push({ case: `${PHOTO_MIB} MiB photo, ${cut.cuts} cuts`, measured: `${uplink.toFixed(1)} MiB uplink, ${attempts} push run(s), ${photoSeconds.toFixed(1)} s`, baseline: `${PHOTO_MIB} MiB file`, ratio: round(uplink / PHOTO_MIB), target: `<= ${(45 / 40).toFixed(3)} (45 MiB for 40)`, met: uplink <= (45 * PHOTO_MIB) / 40 });

    // 3. CSV rows pushed against posted one by one (no added latency).
    const office = cliHome(dir, 'office');
    await office.login(origin);
    await office.must(['pull']);
    const datasheet = path.join(dir, 'datasheet.csv');
    fs.writeFileSync(datasheet, csv(ROWS, Date.UTC(2026, 6, 1)));
    await office.must(['events', 'import', datasheet, '--type', 'wildlife_sighting']);
    started = process.hrtime.bigint();
    await office.must(['push']);
    const csvPush = seconds(started);
    started = process.hrtime.bigint();
    for (let i = 0; i < ROWS; i++) await post(origin, '/api/v1.0/activity/events', sighting(100_000 + i));
    const csvDirect = seconds(started);
    rows.push({ case: `${ROWS} CSV rows`, measured: `${csvPush.toFixed(1)} s push`, baseline: `${csvDirect.toFixed(1)} s one by one`, ratio: round(csvDirect / csvPush), target: '>= 2 (speed-up)', met: csvDirect / csvPush >= 2 });

    const header = ['case', 'measured', 'baseline', 'ratio', 'target', 'met'];
    const widths = [34, 44, 40, 8, 26, 5];
    console.log(`offline writes, ${DIALECT}`);
    console.log(header.map((h, i) => h.padEnd(widths[i]!)).join(' '));
    for (const row of rows) console.log([row.case, row.measured, row.baseline, String(row.ratio), row.target, row.met ? 'yes' : 'NO'].map((v, i) => v.padEnd(widths[i]!)).join(' '));
    const out = path.join(repoRoot, 'bench', 'results', `offline-writes-${DIALECT}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ dialect: DIALECT, events: EVENTS, baseline: BASELINE, rtt_ms: RTT_MS, photo_mib: PHOTO_MIB, rows: ROWS, node: process.version, cpus: os.cpus().length, results: rows }, null, 2) + '\n');
  } finally {
    for (const proxy of proxies) await proxy.close();
    await undici.close();
    await server.stop();
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const round = (value: number) => Number(value.toFixed(3));

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
