/**
 * Usage summary benchmark (issue 28): `fieldops lint --against` reads a usage summary, never the
 * events. Seeds the `event_detail_usage` rows that 1,000,000 events of one type with 20 fields
 * leave (counted in memory and bulk-inserted, as the migration's backfill would leave them: no
 * events rows), then times `summary()` (repository) and `GET .../eventtypes/:key/usage` (the
 * lint's read; target < 2 s). Then the cost the usage upsert adds to an event create: HTTP
 * creates of a 20-field event, rounds with the upsert and rounds with it switched off
 * (alternating, same server and database), the ratio of the medians.
 *
 *   node dist/bench/schema-usage.js [--dialect sqlite|postgres] [--events 1000000] [--creates 200]
 */
import { Writable } from 'node:stream';
import { loadConfig } from '../server/config.js';
import { startServer } from '../server/main.js';
import { createLogger } from '../server/logger.js';
import { KnexEventUsageRepository } from '../server/db/repositories/event-usage.js';
import { valueKeyOf } from '../server/domain/events/usage-deltas.js';
import { dataDirFor, freshDatabase, parseArgs } from './lib/database.js';

const args = parseArgs(process.argv);
const dialect = args.get('dialect') ?? 'sqlite';
const count = Number(args.get('events') ?? 1_000_000);
const creates = Number(args.get('creates') ?? 200);
const PASSWORD = 'Bench-Usage-Pass-1';
const TYPE = 'bench20';
const CHOICES = Array.from({ length: 12 }, (_, i) => `choice_${i}`);
const TAGS = Array.from({ length: 30 }, (_, i) => `tag_${i}`);

/** Event i's details: 10 choice fields, 4 integers, a distinct float, a boolean, a site, tags, distinct free text (1% long), an optional object. */
function details(i: number): Record<string, unknown> {
  const d: Record<string, unknown> = {};
  for (let f = 0; f < 10; f += 1) d[`choice${f}`] = CHOICES[(i * (f + 3)) % 12];
  for (let f = 0; f < 4; f += 1) d[`int${f}`] = (i * (f + 7)) % 10_000;
  d.reading = i * 0.37 + 0.01;
  d.flag = i % 3 === 0;
  d.site = ['north', 'south', 'east', 'west', 'centre'][i % 5];
  d.tags = [TAGS[i % 30], TAGS[(i * 7) % 30], TAGS[i % 30]];
  d.notes = i % 100 === 0 ? `long note ${i} ${'x'.repeat(220)}` : `note ${i}`;
  if (i % 2 === 0) d.extra = i % 4 === 0 ? null : { nested: i };
  return d;
}

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);

async function seed(knex: import('knex').Knex, tenantId: string): Promise<number> {
  const aggregate = new Map<string, number>();
  const bump = (key: string) => aggregate.set(key, (aggregate.get(key) ?? 0) + 1);
  for (let i = 0; i < count; i += 1) {
    for (const [field, value] of Object.entries(details(i))) {
      bump(`${field}\u0000`);
      bump(`${field}\u0000k:${kindOf(value)}`);
      const scalars = (Array.isArray(value) ? value : [value]).filter((v) => ['string', 'number', 'boolean'].includes(typeof v));
      for (const text of new Set(scalars.map((v) => JSON.stringify(v)))) bump(`${field}\u0000=${text}`);
    }
  }
  const rows = [{ tenant_id: tenantId, event_type: TYPE, field: '', value_key: 't', grp: 0, events: count, value_text: null, num: null, str_len: null } as Record<string, unknown>];
  for (const [key, events] of aggregate) {
    const [field, rest] = key.split('\u0000') as [string, string];
    if (!rest.startsWith('=')) {
      rows.push({ tenant_id: tenantId, event_type: TYPE, field, value_key: rest, grp: 0, events, value_text: null, num: null, str_len: null });
      continue;
    }
    const text = rest.slice(1);
    const value = JSON.parse(text) as unknown;
    const long = typeof value === 'string' && value.length > 200;
    rows.push({ tenant_id: tenantId, event_type: TYPE, field, value_key: valueKeyOf(text), grp: long ? 2 : 1, events, value_text: long ? null : text, num: typeof value === 'number' ? value : null, str_len: typeof value === 'string' ? value.length : null });
  }
  aggregate.clear();
  await knex.transaction(async (trx) => {
    for (let start = 0; start < rows.length; start += 400) await trx('event_detail_usage').insert(rows.slice(start, start + 400));
  });
  if (dialect === 'postgres') await knex.raw('ANALYZE event_detail_usage');
  return rows.length;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const db = await freshDatabase(dialect);
  const sink = new Writable({ write: (chunk, _e, callback) => { if (process.env.BENCH_LOG) process.stderr.write(chunk); callback(); } });
  const config = loadConfig({ FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_DATA_DIR: dataDirFor(db.location), LOG_LEVEL: 'warn' }, { port: 0, host: '127.0.0.1', database: db.location });
  const server = await startServer(config, { logger: createLogger('warn', sink) });
  try {
    const knex = server.runtime.database.knex;
    const tenant = await knex('tenants').where({ name: 'default' }).first();
    const seeding = performance.now();
    const rows = await seed(knex, tenant.id as string);
    process.stderr.write(`seeded ${rows} usage rows of ${count} events in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);

    const usage = new KnexEventUsageRepository(knex);
    const repoMs: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      const summary = await usage.summary(tenant.id as string, TYPE);
      repoMs.push(performance.now() - started);
      if (summary.events !== count || Object.keys(summary.fields).length !== 20) throw new Error('unexpected summary');
    }
    // NOTE: logged in after the long seeding, so no kept-alive connection idles past the server's timeout.
    const login = await fetch(`${server.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const auth = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    const schema = { json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} }, ui: { fields: {}, sections: {}, order: [], headers: {} } };
    const typed = await fetch(`${server.url}/api/v2.0/activity/eventtypes`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ value: TYPE, display: TYPE, schema }) });
    if (typed.status !== 201) throw new Error(`type: ${typed.status} ${await typed.text()}`);

    const httpMs: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      const response = await fetch(`${server.url}/api/v2.0/activity/eventtypes/${TYPE}/usage`, { headers: auth });
      await response.arrayBuffer();
      httpMs.push(performance.now() - started);
    }

    // The create's cost with and without the usage upsert: alternating rounds, same server.
    const realApply = KnexEventUsageRepository.prototype.apply;
    const createRound = async (withUsage: boolean, round: number): Promise<number> => {
      KnexEventUsageRepository.prototype.apply = withUsage ? realApply : async () => {};
      const started = performance.now();
      for (let i = 0; i < creates; i += 1) {
        const body = JSON.stringify({ event_type: TYPE, event_details: details(count + round * creates + i) });
        const response = await fetch(`${server.url}/api/v1.0/activity/events`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body });
        if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      }
      return (performance.now() - started) / creates;
    };
    const withMs: number[] = [];
    const withoutMs: number[] = [];
    for (let round = 0; round < 6; round += 1) {
      if (round % 2 === 0) withMs.push(await createRound(true, round));
      else withoutMs.push(await createRound(false, round));
      if (round % 2 === 0) withoutMs.push(await createRound(false, round + 100));
      else withMs.push(await createRound(true, round + 100));
    }
    KnexEventUsageRepository.prototype.apply = realApply;
    const report = {
      dialect, events: count, usage_rows: rows, fields: 20,
      summary_ms: { repository_median: Number(median(repoMs).toFixed(1)), repository_first: Number(repoMs[0]!.toFixed(1)), http_median: Number(median(httpMs).toFixed(1)), target_ms: 2000 },
      create_ms: { with_usage: Number(median(withMs).toFixed(2)), without_usage: Number(median(withoutMs).toFixed(2)), ratio: Number((median(withMs) / median(withoutMs)).toFixed(3)), creates_per_round: creates },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${median(httpMs) < 2000 ? 'OK' : 'SLOW'}: usage summary of ${count} events in ${median(httpMs).toFixed(0)} ms over HTTP (target < 2 s); an event create costs ${report.create_ms.ratio}x with the usage upsert\n`);
  } finally {
    await server.close();
    await db.drop();
  }
}

await main();
