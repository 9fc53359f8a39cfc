/**
 * Offline write path benchmark (issue 16). Against a real `fieldops serve` (child process,
 * SQLite), in one run:
 * - 10,000 events from a CSV datasheet: validation rate of `events import` (records/s), then
 *   `push` (records/s, requests), against the same number of events POSTed directly, one request
 *   each, with the same undici transport (the server's own intake rate for those records);
 * - a 50,000-point GPX track: validation of `observations import`, then `push` (batches of 1000),
 *   against the same number of points POSTed directly in batches of 1000.
 * The ratio push/direct is the figure of merit (target >= 0.5). Prints a table and writes
 * bench/results/offline-push-sqlite.json.
 *
 *   node dist/bench/offline-push.js [--events 10000] [--points 50000]
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importEvents } from '../cli/record/import-events.js';
import { importObservations } from '../cli/record/observations.js';
import { authorizedTransport, tokenSession } from '../sync/auth/session.js';
import { countingTransport } from '../sync/counting.js';
import { runSync } from '../sync/engine/run-sync.js';
import type { TransportRequest } from '../sync/http.js';
import { KnexMirrorStore } from '../sync/mirror/knex-store.js';
import { openMirrorDatabase } from '../sync/mirror/open.js';
import { OutboxStore } from '../sync/outbox/store.js';
import { runPush } from '../sync/push/run-push.js';
import { withRetries } from '../sync/retry.js';
import { createUndiciTransport } from '../sync/transport.js';
import { repoRoot, startChild } from './lib/processes.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const EVENTS = Number(args.get('events') ?? 10_000);
const POINTS = Number(args.get('points') ?? 50_000);
const PASSWORD = 'Bench-Offline-Passphrase-5';
const bin = path.join(repoRoot, 'bin/fieldops.js');
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

function csv(rows: number): string {
  const lines = ['time,latitude,longitude,priority,state,notes,species'];
  const start = Date.UTC(2026, 10, 1);
  for (let i = 0; i < rows; i++) lines.push(`${new Date(start + i * 60_000).toISOString()},${(-1.2 - i / 1e5).toFixed(6)},${(36.8 + i / 1e5).toFixed(6)},100,new,"sighting ${i}",${i % 2 ? 'Lion' : 'elephant'}`);
  return lines.join('\n') + '\n';
}

function gpx(points: number, start: number): string {
  const lines = ['<?xml version="1.0"?><gpx version="1.1"><trk><trkseg>'];
  for (let i = 0; i < points; i++) lines.push(`<trkpt lat="${(-1.2 - i / 1e7).toFixed(7)}" lon="${(36.8 + i / 1e7).toFixed(7)}"><ele>1600</ele><time>${new Date(start + i * 1000).toISOString()}</time></trkpt>`);
  return lines.join('\n') + '\n</trkseg></trk></gpx>\n';
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-offline-'));
  const server = await startChild(
    [bin, 'serve', '--port', '0'],
    { DATABASE_URL: path.join(dir, 'server.sqlite3'), FIELDOPS_DATA_DIR: path.join(dir, 'data'), FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn' },
    /listening on (http:\/\/\S+)/,
  );
  const origin = server.match[1]!;
  const undici = createUndiciTransport({ timeoutMs: 60_000 });
  try {
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const counted = countingTransport(undici);
    // The CLI's stack: a request on a keep-alive socket the server closed meanwhile is retried (creates carry their ids).
    const transport = authorizedTransport(withRetries(counted.transport, { attempts: 4, baseDelayMs: 100, retryUnsafe: true }), tokenSession(origin, token));
    const post = async (url: string, body: unknown, expect: number[]) => {
      const response = await transport({ method: 'POST', url: origin + url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } as TransportRequest);
      if (!expect.includes(response.status)) throw new Error(`${url}: ${response.status} ${new TextDecoder().decode(response.body)}`);
    };
    for (const [value, display] of [['elephant', 'Elephant'], ['lion', 'Lion']]) await post('/api/v2.0/choices', { field: 'species', value, display }, [201]);
    await post('/api/v2.0/activity/eventcategories', { value: 'monitoring', display: 'Monitoring' }, [201]);
    await post('/api/v2.0/activity/eventtypes', {
      value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point',
      schema: {
        json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: { notes: { type: 'string', maxLength: 500 }, species: { type: 'string', anyOf: [{ $ref: '/api/v2.0/schemas/choices.json?field=species' }] } } },
        ui: { fields: { notes: { type: 'TEXT', parent: 'main' }, species: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', parent: 'main', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['species'] } } }, sections: { main: { label: 'Main', columns: 1, isActive: true, leftColumn: [{ name: 'notes', type: 'field' }, { name: 'species', type: 'field' }], rightColumn: [] } }, order: ['main'], headers: {} },
      },
    }, [201]);

    const mirrorFile = path.join(dir, 'mirror.sqlite3');
    const knex = (await openMirrorDatabase(mirrorFile, { create: true }))!;
    const mirror = new KnexMirrorStore(knex);
    await runSync({ transport, server: origin, username: 'admin', store: mirror });
    const outbox = new OutboxStore(knex);
    const stores = { mirror, outbox, file: mirrorFile, close: async () => {} };
    const rows: Array<Record<string, unknown>> = [];
    // Warm-up (JIT, caches, the server's first subject and source): neither side measured pays it.
    const warm = Array.from({ length: 1000 }, (_, i) => ({ location: { lat: -1, lon: 36 }, recorded_at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(), manufacturer_id: 'warm-up', subject_name: 'Warm-up' }));
    for (let i = 0; i < 5; i++) await post('/api/v1.0/sensors/gps-radio/bench/status', warm.map((o) => ({ ...o, recorded_at: new Date(Date.parse(o.recorded_at) + i * 86_400_000).toISOString() })), [201]);
    for (let i = 0; i < 50; i++) await post('/api/v1.0/activity/events', { event_type: 'wildlife_sighting', time: new Date().toISOString(), event_details: { notes: 'warm-up', species: 'lion' } }, [201]);

    // Events: import, push, direct.
    const sheet = path.join(dir, 'sightings.csv');
    fs.writeFileSync(sheet, csv(EVENTS));
    let started = process.hrtime.bigint();
    const imported = await importEvents({ file: sheet, shownPath: sheet, format: 'csv', type: 'wildlife_sighting', skipInvalid: false, mirror, outbox });
    const importSeconds = seconds(started);
    if (imported.queued !== EVENTS) throw new Error(`queued ${imported.queued}`);
    started = process.hrtime.bigint();
    const pushed = await runPush({ transport, server: origin, outbox });
    const pushSeconds = seconds(started);
    if (pushed.sent !== EVENTS) throw new Error(`pushed ${pushed.sent}: ${JSON.stringify(pushed.rejected.slice(0, 2))} ${pushed.stopped}`);
    const bodies = (await outbox.list({ status: ['sent'] })).map((e) => ({ ...(e.body as Record<string, unknown>), id: randomUUID() }));
    started = process.hrtime.bigint();
    for (const body of bodies) await post('/api/v1.0/activity/events', body, [201]);
    const directSeconds = seconds(started);
    rows.push({
      case: `${EVENTS} events (CSV)`, validate_per_s: Math.round(EVENTS / (imported.validateMs / 1000)), import_per_s: Math.round(EVENTS / importSeconds),
      push_per_s: Math.round(EVENTS / pushSeconds), push_requests: pushed.requests, direct_per_s: Math.round(EVENTS / directSeconds), direct_requests: EVENTS,
      ratio: Number((directSeconds / pushSeconds).toFixed(2)),
    });

    // Observations: import, push, direct (another source, so nothing is a duplicate).
    const track = path.join(dir, 'track.gpx');
    fs.writeFileSync(track, gpx(POINTS, Date.UTC(2026, 10, 1)));
    started = process.hrtime.bigint();
    const points = await importObservations(stores, { file: track, shownPath: track, format: 'gpx', subject: 'Collar 1', sourceType: 'gps-radio', providerKey: 'bench', manufacturerId: 'laptop-1', skipInvalid: false });
    const pointsImportSeconds = seconds(started);
    if (points.queued !== POINTS) throw new Error(`queued ${points.queued}`);
    started = process.hrtime.bigint();
    const pushedPoints = await runPush({ transport, server: origin, outbox });
    const pointsPushSeconds = seconds(started);
    if (pushedPoints.sent !== POINTS) throw new Error(`pushed ${pushedPoints.sent}: ${pushedPoints.stopped} ${JSON.stringify(pushedPoints.rejected.slice(0, 2))}`);
    const observations = (await outbox.list({ status: ['sent'] })).filter((e) => e.kind === 'observation').map((e) => ({ ...(e.body as { observation: Record<string, unknown> }).observation, manufacturer_id: 'direct-1', subject_name: 'Collar 2' }));
    started = process.hrtime.bigint();
    for (let i = 0; i < observations.length; i += 1000) await post('/api/v1.0/sensors/gps-radio/bench/status', observations.slice(i, i + 1000), [201]);
    const pointsDirectSeconds = seconds(started);
    rows.push({
      case: `${POINTS}-point GPX track`, validate_per_s: Math.round(POINTS / (points.validateMs / 1000)), import_per_s: Math.round(POINTS / pointsImportSeconds),
      push_per_s: Math.round(POINTS / pointsPushSeconds), push_requests: pushedPoints.requests, direct_per_s: Math.round(POINTS / pointsDirectSeconds), direct_requests: Math.ceil(POINTS / 1000),
      ratio: Number((pointsDirectSeconds / pointsPushSeconds).toFixed(2)),
    });
    await knex.destroy();

    const header = ['case', 'validate/s', 'import/s', 'push/s', 'push req', 'direct/s', 'direct req', 'push/direct'];
    console.log(header.map((h, i) => (i === 0 ? h.padEnd(24) : h.padStart(12))).join(''));
    for (const r of rows) {
      console.log([String(r.case).padEnd(24), ...[r.validate_per_s, r.import_per_s, r.push_per_s, r.push_requests, r.direct_per_s, r.direct_requests, r.ratio].map((v) => String(v).padStart(12))].join(''));
    }
    console.log('target: push/direct >= 0.5 (push rate as a share of the server\'s intake rate for the same records posted directly)');
    const out = path.join(repoRoot, 'bench', 'results', 'offline-push-sqlite.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ events: EVENTS, points: POINTS, node: process.version, cpus: os.cpus().length, rows }, null, 2) + '\n');
  } finally {
    await undici.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
