/**
 * CLI sync and lint benchmark (issue 7). Against a real `fieldops serve` (child process, SQLite)
 * holding 1,000 patrol types with schemas:
 * - cold sync (empty mirror) and no-change sync: time, requests, bytes; measured both for the
 *   sync engine in-process (undici transport, SQLite mirror) and for the `fieldops sync` binary
 *   (process start included);
 * - lint throughput in documents per second, against a plain Ajv 2020 compile of the same
 *   documents in the same run.
 * Prints a table and writes bench/results/cli-sync-sqlite.json.
 *
 *   node dist/bench/cli-sync.js [--types 1000] [--runs 5]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import knexFactory from 'knex';
import { lintText } from '../cli/lint/lint-file.js';
import { authorizedTransport, tokenSession } from '../sync/auth/session.js';
import { countingTransport } from '../sync/counting.js';
import { runSync } from '../sync/engine/run-sync.js';
import { KnexMirrorStore } from '../sync/mirror/knex-store.js';
import { openMirrorDatabase } from '../sync/mirror/open.js';
import { createUndiciTransport } from '../sync/transport.js';
import { bulkInsertPatrolTypes } from '../test/helpers/bulk-catalog.js';
import { repoRoot, startChild } from './lib/processes.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const TYPES = Number(args.get('types') ?? 1000);
const RUNS = Number(args.get('runs') ?? 5);
const PASSWORD = 'Bench-Sync-Passphrase-3';
const bin = path.join(repoRoot, 'bin/fieldops.js');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

interface SyncRow {
  case: string;
  medianMs: number;
  requests: number;
  bytes: number;
  statuses: string;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-cli-'));
  const database = path.join(dir, 'server.sqlite3');
  const server = await startChild(
    [bin, 'serve', '--port', '0'],
    { DATABASE_URL: database, FIELDOPS_DATA_DIR: path.join(dir, 'data'), FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn' },
    /listening on (http:\/\/\S+)/,
  );
  const origin = server.match[1]!;
  try {
    const seeder = knexFactory({ client: 'better-sqlite3', connection: { filename: database }, useNullAsDefault: true });
    await bulkInsertPatrolTypes(seeder, TYPES);
    await seeder.destroy();
    const login = await fetch(`${origin}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: PASSWORD }) });
    const { access_token: token } = (await login.json()) as { access_token: string };

    const undici = createUndiciTransport();
    const rows: SyncRow[] = [];
    const engine = async (mirror: string) => {
      const wire = countingTransport(undici);
      const store = new KnexMirrorStore((await openMirrorDatabase(mirror, { create: true }))!);
      const started = process.hrtime.bigint();
      await runSync({ transport: authorizedTransport(wire.transport, tokenSession(origin, token)), server: origin, username: 'admin', store });
      const elapsed = ms(started);
      await store.close();
      return { elapsed, requests: wire.log.requests(), bytes: wire.log.bytes(), statuses: [...new Set(wire.log.exchanges.map((e) => e.status))].join('/') };
    };
    const record = (name: string, runs: Array<{ elapsed: number; requests: number; bytes: number; statuses: string }>) =>
      rows.push({ case: name, medianMs: Math.round(median(runs.map((r) => r.elapsed)) * 10) / 10, requests: runs[0]!.requests, bytes: runs[0]!.bytes, statuses: runs[0]!.statuses });

    const cold = [];
    for (let i = 0; i < RUNS; i++) cold.push(await engine(path.join(dir, `cold-${i}.sqlite3`)));
    record(`engine: cold sync (${TYPES} types)`, cold);
    const warm = [];
    for (let i = 0; i < RUNS * 2; i++) warm.push(await engine(path.join(dir, 'cold-0.sqlite3')));
    record('engine: no-change sync', warm);
    await undici.close();

    // The binary, as a field laptop runs it: process start, mirror open, sync, report.
    const binary = async (mirror: string) => {
      const started = process.hrtime.bigint();
      const out = await run([bin, 'sync', '--json'], { FIELDOPS_TOKEN: token, FIELDOPS_SERVER: origin, FIELDOPS_MIRROR: mirror, HOME: dir });
      const elapsed = ms(started);
      const report = JSON.parse(out);
      return { elapsed, requests: report.wire.requests, bytes: report.wire.bytes, statuses: [...new Set(report.wire.exchanges.map((e: { status: number }) => e.status))].join('/') };
    };
    const binaryCold = [];
    for (let i = 0; i < RUNS; i++) binaryCold.push(await binary(path.join(dir, `bin-${i}.sqlite3`)));
    record('fieldops sync: cold', binaryCold);
    const binaryWarm = [];
    for (let i = 0; i < RUNS; i++) binaryWarm.push(await binary(path.join(dir, 'bin-0.sqlite3')));
    record('fieldops sync: no change', binaryWarm);

    // Lint throughput: the same 1,000 stored schemas (each made unique), as file texts.
    const store = new KnexMirrorStore((await openMirrorDatabase(path.join(dir, 'cold-0.sqlite3'), { create: false }))!);
    const documents = (await store.items('patrol_types')).map((item, i) => {
      const schema = item.record.schema as { json: Record<string, unknown>; ui: unknown };
      return { ...schema, json: { ...schema.json, title: `Bulk patrol type ${i}` } };
    });
    await store.close();
    const texts = documents.map((d) => JSON.stringify(d, null, 2));
    const lintRate = rate(() => {
      for (const text of texts) if (lintText(text, { explicit: true }).findings.some((f) => f.severity === 'error')) throw new Error('unexpected lint error');
    }, texts.length);
    const ajvRate = rate(() => {
      // Plain Ajv: parse and compile each document's JSON Schema (choice references point at
      // one registered stand-in, since plain Ajv cannot load them).
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajv.addSchema({ type: 'string' }, 'https://bench.invalid/api/v2.0/schemas/choices.json');
      for (const text of texts) {
        const json = (JSON.parse(text) as { json: Record<string, unknown> }).json;
        ajv.compile({ ...json, $id: `https://bench.invalid/t/${Math.random()}`, properties: rewriteRefs(json.properties) });
      }
    }, texts.length);
    const files = path.join(dir, 'lint');
    fs.mkdirSync(files);
    texts.forEach((text, i) => fs.writeFileSync(path.join(files, `type-${i}.v2.json`), text));
    const started = process.hrtime.bigint();
    await run([bin, 'lint', files, '--no-mirror', '--format', 'json'], { HOME: dir });
    const binaryRate = texts.length / (ms(started) / 1000);

    const lint = { documents: texts.length, lintDocsPerSecond: Math.round(lintRate), ajvCompileDocsPerSecond: Math.round(ajvRate), ratio: lintRate / ajvRate, binaryDocsPerSecond: Math.round(binaryRate) };
    print(rows, lint);
    const out = path.join(repoRoot, 'bench', 'results', 'cli-sync-sqlite.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ types: TYPES, runs: RUNS, node: process.version, cpus: os.cpus().length, sync: rows, lint }, null, 2) + '\n');
    console.log(`\nwritten ${path.relative(process.cwd(), out)}`);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function rewriteRefs(properties: unknown): unknown {
  return JSON.parse(JSON.stringify(properties).replace(/"\/api\/v2\.0\/schemas\/choices\.json\?field=[^"]+"/g, '"https://bench.invalid/api/v2.0/schemas/choices.json"'));
}

/** Documents per second of the best of three passes (after one warm-up pass). */
function rate(pass: () => void, documents: number): number {
  pass();
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = process.hrtime.bigint();
    pass();
    best = Math.min(best, ms(started));
  }
  return documents / (best / 1000);
}

function run(argv: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => (code === 0 || (argv.includes('lint') && code === 1) ? resolve(out) : reject(new Error(`${argv.join(' ')} exited ${code}: ${err}`))));
  });
}

function print(rows: SyncRow[], lint: { documents: number; lintDocsPerSecond: number; ajvCompileDocsPerSecond: number; ratio: number; binaryDocsPerSecond: number }) {
  const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  console.log(`\nSync of ${TYPES} patrol types with schemas (median of ${RUNS}+ runs)\n`);
  console.log(['case'.padEnd(34), 'time'.padStart(10), 'requests'.padStart(9), 'received'.padStart(12), '  statuses'].join(''));
  for (const r of rows) console.log([r.case.padEnd(34), `${r.medianMs} ms`.padStart(10), String(r.requests).padStart(9), kib(r.bytes).padStart(12), `  ${r.statuses}`].join(''));
  console.log(`\nLint throughput (${lint.documents} documents, in memory, best of 3)\n`);
  console.log(`${'fieldops lint rules (lintText)'.padEnd(34)}${`${lint.lintDocsPerSecond} docs/s`.padStart(16)}`);
  console.log(`${'plain Ajv 2020 compile'.padEnd(34)}${`${lint.ajvCompileDocsPerSecond} docs/s`.padStart(16)}`);
  console.log(`${'ratio lint / ajv compile'.padEnd(34)}${lint.ratio.toFixed(2).padStart(16)}`);
  console.log(`${'fieldops lint <dir> (binary)'.padEnd(34)}${`${lint.binaryDocsPerSecond} docs/s`.padStart(16)}`);
}

await main();
