/**
 * Batched push against one request per record (issue 26 §4 target: 10,000 rows pushed at least
 * 2x faster than POSTed one by one). Against a real `fieldops serve` child: N events sent as
 * `sync/push` batches of 500 `event.create` entries (each keyed, so each also stores its
 * idempotency key), then the same N bodies (new ids) POSTed one by one with an Idempotency-Key
 * each, on the same keep-alive client. Prints seconds, rows/s and the ratio.
 *
 *   node dist/bench/push-batch.js [--events 10000] [--database postgres://...]
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, startChild } from './lib/processes.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const EVENTS = Number(args.get('events') ?? 10_000);
const BATCH = 500;
const PASSWORD = 'Bench-Push-Passphrase-5';
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-push-'));
  const database = args.get('database') ?? path.join(dir, 'server.sqlite3');
  const server = await startChild(
    [path.join(repoRoot, 'bin/fieldops.js'), 'serve', '--port', '0'],
    { DATABASE_URL: database, FIELDOPS_DATA_DIR: path.join(dir, 'data'), FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn' },
    /listening on (http:\/\/\S+)/,
  );
  const origin = server.match[1]!;
  try {
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const post = async (url: string, body: unknown, expect: number, key?: string) => {
      const response = await fetch(origin + url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(key ? { 'idempotency-key': key } : {}) }, body: JSON.stringify(body) });
      const text = await response.text();
      if (response.status !== expect) throw new Error(`${url}: ${response.status} ${text.slice(0, 300)}`);
      return text;
    };
    await post('/api/v2.0/activity/eventtypes', {
      value: 'sighting', display: 'Sighting',
      schema: {
        json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: { notes: { type: 'string', maxLength: 500 }, count: { type: 'integer' } } },
        ui: { fields: { notes: { type: 'TEXT', parent: 'main' }, count: { type: 'NUMERIC', parent: 'main' } }, sections: { main: { label: 'Main', columns: 1, isActive: true, leftColumn: [{ name: 'notes', type: 'field' }, { name: 'count', type: 'field' }], rightColumn: [] } }, order: ['main'], headers: {} },
      },
    }, 201);
    const body = (i: number) => ({ id: randomUUID(), event_type: 'sighting', time: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(), location: { latitude: -1.2 - i / 1e5, longitude: 36.8 + i / 1e5 }, priority: 100, state: 'new', event_details: { notes: `sighting ${i}`, count: i % 7 } });
    // Warm-up of both paths (JIT, caches): not measured.
    for (let i = 0; i < 100; i++) await post('/api/v1.0/activity/events', body(i), 201, randomUUID());
    await post('/api/fieldops/v1/sync/push', { entries: Array.from({ length: 100 }, (_, i) => ({ key: randomUUID(), op: 'event.create', body: body(i) })) }, 200);

    let started = process.hrtime.bigint();
    let requests = 0;
    let deferred = 0;
    for (let start = 0; start < EVENTS; start += BATCH) {
      // As the CLI does: entries deferred (the batch's time budget ran out) go in the next request.
      let entries = Array.from({ length: Math.min(BATCH, EVENTS - start) }, (_, i) => ({ key: randomUUID(), op: 'event.create', body: body(start + i) }));
      while (entries.length > 0) {
        const answer = JSON.parse(await post('/api/fieldops/v1/sync/push', { entries }, 200)) as { outcomes: Array<{ key: string; status: string }> };
        requests++;
        const bad = answer.outcomes.find((o) => o.status !== 'applied' && o.status !== 'deferred');
        if (bad) throw new Error(JSON.stringify(bad));
        const later = new Set(answer.outcomes.filter((o) => o.status === 'deferred').map((o) => o.key));
        deferred += later.size;
        entries = entries.filter((entry) => later.has(entry.key));
      }
    }
    const pushSeconds = seconds(started);
    started = process.hrtime.bigint();
    for (let i = 0; i < EVENTS; i++) await post('/api/v1.0/activity/events', body(i), 201, randomUUID());
    const directSeconds = seconds(started);
    const result = {
      dialect: database.startsWith('postgres') ? 'postgres' : 'sqlite', events: EVENTS,
      push_seconds: Number(pushSeconds.toFixed(2)), push_per_s: Math.round(EVENTS / pushSeconds), push_requests: requests, deferred,
      direct_seconds: Number(directSeconds.toFixed(2)), direct_per_s: Math.round(EVENTS / directSeconds), direct_requests: EVENTS,
      speedup: Number((directSeconds / pushSeconds).toFixed(2)),
    };
    console.log(JSON.stringify(result));
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
