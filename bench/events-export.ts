/**
 * Events export benchmark (issue 27 §4): `activity/events/export` of N events (default 100,000;
 * target under 20 s), streamed, and the latency of another request (`user/me`) measured during
 * the export against the same request on the idle server (the export must not hold the event loop).
 *
 * Two of the three types have a v2 schema (one names only some of its events' keys: the rest go
 * to Other Details); the third has none. On PostgreSQL the tables are analysed after the seeding,
 * as autovacuum would have done on a server before long (`--analyze false` measures the export
 * on a just-loaded table whose statistics the planner does not have yet).
 *
 *   node dist/bench/events-export.js [--dialect sqlite|postgres] [--events 100000] [--analyze true|false]
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import { repoRoot, startChild } from './lib/processes.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';

const args = parseArgs(process.argv);
const dialect = args.get('dialect') ?? 'sqlite';
const count = Number(args.get('events') ?? 100_000);
const analyze = (args.get('analyze') ?? 'true') !== 'false';
const PASSWORD = 'Bench-Export-Pass-1';

/** Inserts `count` events directly (serial numbers 1..count), three types with details. */
async function seed(location: string): Promise<void> {
  const knex = dialect === 'sqlite'
    ? knexFactory({ client: 'better-sqlite3', connection: { filename: location }, useNullAsDefault: true })
    : knexFactory({ client: 'pg', connection: location });
  const tenant = await knex('tenants').where({ name: 'default' }).first();
  const start = Date.UTC(2026, 0, 1);
  for (let from = 0; from < count; from += 5000) {
    const rows = Array.from({ length: Math.min(5000, count - from) }, (_, k) => {
      const i = from + k;
      const type = ['sighting', 'fence', 'camp'][i % 3]!;
      return {
        id: randomUUID(), tenant_id: tenant.id, event_type: type, title: `Event ${i}, "quoted"`, time: start + i * 1000, latitude: -1 - (i % 100) / 100, longitude: 36 + (i % 100) / 100,
        priority: [0, 100, 200, 300][i % 4], state: 'new', event_details: JSON.stringify(type === 'fence' ? { metres: i, note: 'line\nbreak' } : { count: i % 7, species: 'rhino' }),
        created_by_user_id: null, created_by_client_id: null, created_at: start, updated_at: start + i, serial_number: i + 1, revision: 1,
      };
    });
    await knex.batchInsert('events', rows, dialect === 'sqlite' ? 200 : 1000);
  }
  await knex('event_serials').insert({ tenant_id: tenant.id, last: count }).onConflict('tenant_id').merge();
  if (dialect === 'postgres' && analyze) await knex.raw('ANALYZE');
  await knex.destroy();
}

/** The v2 types of the seeded events: `sighting` names both its keys, `fence` only `metres` (its `note` goes to Other Details). */
async function createTypes(origin: string, auth: Record<string, string>): Promise<void> {
  const type = (value: string, properties: Record<string, unknown>) => ({
    value, display: value, schema: { json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties }, ui: { fields: {}, sections: {}, order: [], headers: {} } },
  });
  for (const body of [type('sighting', { count: { type: 'integer', title: 'Count' }, species: { type: 'string', title: 'Species' } }), type('fence', { metres: { type: 'number', title: 'Metres' } })]) {
    const response = await fetch(`${origin}/api/v2.0/activity/eventtypes`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`creating type ${body.value}: ${response.status} ${await response.text()}`);
  }
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? NaN;

async function probe(origin: string, auth: Record<string, string>, until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!until()) {
    const started = performance.now();
    const response = await fetch(`${origin}/api/v1.0/user/me`, { headers: auth });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return times;
}

async function main() {
  const db = await freshDatabase(dialect);
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDirFor(db.location), FIELDOPS_ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' };
  const server = await startChild([path.join(repoRoot, 'bin/fieldops.js'), 'serve', '--port', '0'], env, /listening on (http:\/\/\S+)/);
  const origin = server.match[1]!;
  try {
    const seeding = performance.now();
    await seed(db.location);
    process.stderr.write(`seeded ${count} events in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const auth = { Authorization: `Bearer ${token}` };
    await createTypes(origin, auth);
    let idleDone = false;
    setTimeout(() => (idleDone = true), 2000);
    const idle = await probe(origin, auth, () => idleDone);
    let done = false;
    const during = probe(origin, auth, () => done);
    const started = performance.now();
    const response = await fetch(`${origin}/api/v1.0/activity/events/export/`, { headers: auth });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    done = true;
    const busy = await during;
    const report = {
      dialect, events: count, analyzed: dialect === 'postgres' ? analyze : null, status: response.status, seconds: Number(seconds.toFixed(2)), target_seconds: 20, megabytes: Number((bytes / 1e6).toFixed(1)), newlines: lines,
      other_request_ms: { idle_p50: Number(percentile(idle, 0.5).toFixed(1)), during_p50: Number(percentile(busy, 0.5).toFixed(1)), during_p99: Number(percentile(busy, 0.99).toFixed(1)), during_max: Number(Math.max(...busy).toFixed(1)), samples: busy.length },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${seconds < 20 ? 'OK' : 'SLOW'}: ${count} events exported in ${seconds.toFixed(1)} s (target < 20 s)\n`);
  } finally {
    await server.stop();
    await db.drop();
  }
}

await main();
