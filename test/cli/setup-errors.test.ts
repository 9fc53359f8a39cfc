/**
 * Issue 14 items 2 and 3: ordinary set-up mistakes are `error:` + `hint:`, exit 1, no stack
 * (the stack only with --debug); a closed stdout ends a command quietly. The real binary.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { binPath, runCli, type CliResult } from '../helpers/cli.js';
import { adminUrl, dialect, unavailableReason } from '../helpers/database.js';
import { noteChildOutput } from '../helpers/warnings.js';

const STACK = /\n\s+at \S/;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-setup-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'share'), LOG_LEVEL: 'warn' };

function expectUserError(t: Test, result: CliResult, message: RegExp, hint: RegExp) {
  t.equal(result.code, 1, 'exit 1');
  t.match(result.stderr, message);
  t.match(result.stderr, /^error: /m);
  t.match(result.stderr, hint);
  t.notMatch(result.stderr, STACK, 'no stack');
  t.notMatch(result.stderr + result.stdout, /unexpected error|Acquire connection error/);
}


t.test('--data-dir under a regular file', async (t) => {
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, 'x');
  const result = await runCli(['serve', '--port', '0', '--data-dir', path.join(file, 'data')], { env });
  expectUserError(t, result, /data directory .* a part of that path is a regular file/, /^hint: choose another --data-dir/m);
  const debug = await runCli(['serve', '--port', '0', '--data-dir', path.join(file, 'data'), '--debug'], { env });
  t.match(debug.stderr, /^debug: Error: ENOTDIR/m, '--debug shows the stack behind it');
  t.match(debug.stderr, STACK);
});

t.test('unreachable PostgreSQL', async (t) => {
  // Port 9 (discard) is closed on any test machine: the connection is refused at once.
  const result = await runCli(['serve', '--port', '0', '--data-dir', path.join(dir, 'pg-data'), '--database', 'postgres://postgres@127.0.0.1:9/fieldops'], { env });
  expectUserError(t, result, /cannot reach PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:9\/fieldops/, /^hint: is PostgreSQL running/m);
  const admin = await runCli(['admin', 'create-tenant', '--name', 'x', '--database', 'postgres://postgres@127.0.0.1:9/fieldops'], { env });
  expectUserError(t, admin, /cannot reach PostgreSQL/, /^hint: /m);
});

t.test('a PostgreSQL database that does not exist', async (t) => {
  if (dialect !== 'postgres') return void t.pass('skipped', { skip: 'needs PostgreSQL (FIELDOPS_TEST_DIALECT=postgres)' });
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const url = new URL(adminUrl);
  url.pathname = '/fieldops_no_such_database_14';
  const result = await runCli(['serve', '--port', '0', '--data-dir', path.join(dir, 'pg-data'), '--database', url.toString()], { env });
  expectUserError(t, result, /the PostgreSQL database "fieldops_no_such_database_14" does not exist/, /^hint: create it first: createdb/m);
});

t.test('a PostgreSQL user that may not create tables', async (t) => {
  if (dialect !== 'postgres') return void t.pass('skipped', { skip: 'needs PostgreSQL (FIELDOPS_TEST_DIALECT=postgres)' });
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const admin = knexFactory({ client: 'pg', connection: adminUrl });
  const suffix = randomBytes(4).toString('hex');
  const [role, database] = [`fieldops_nocreate_${suffix}`, `fieldops_nocreate_${suffix}`];
  // A database the role does not own: PostgreSQL 15 and later give it no CREATE on public (older ones do, so it is revoked).
  await admin.raw(`CREATE ROLE ${role} LOGIN`);
  await admin.raw(`CREATE DATABASE ${database}`);
  t.teardown(async () => {
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.raw(`DROP ROLE IF EXISTS ${role}`);
    await admin.destroy();
  });
  const url = new URL(adminUrl);
  const owner = knexFactory({ client: 'pg', connection: Object.assign(new URL(url), { pathname: `/${database}` }).toString() });
  await owner.raw('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  await owner.destroy();
  url.username = role;
  url.pathname = `/${database}`;
  const result = await runCli(['serve', '--port', '0', '--data-dir', path.join(dir, 'pg-nocreate'), '--database', url.toString()], { env });
  expectUserError(t, result, new RegExp(`the PostgreSQL user "${role}" may not create fieldops's tables in "${database}"`), /^hint: let the user own the database .*GRANT CREATE ON SCHEMA public/m);
});

t.test('lint --output into a missing folder', async (t) => {
  const doc = path.join(dir, 'ok.json');
  fs.writeFileSync(doc, JSON.stringify({ json: { type: 'object', properties: {} }, ui: {} }));
  const result = await runCli(['lint', doc, '--output', path.join(dir, 'no', 'such', 'lint.sarif'), '--format', 'sarif'], { env });
  expectUserError(t, result, /cannot write .*lint\.sarif/, /^hint: create the folder first/m);
});

/** Runs the binary with a stdout whose reader has gone (as `| head -1` after its line). */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [binPath, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => {
      noteChildOutput(stderr, `fieldops ${args.join(' ')}`);
      resolve({ code, stderr });
    });
  });
}

t.test('a closed stdout ends the command quietly', async (t) => {
  for (const args of [['lint', '--help'], ['status'], ['--help']]) {
    const result = await withClosedStdout(args);
    t.equal(result.code, 0, `fieldops ${args.join(' ')}: exit 0`);
    t.equal(result.stderr, '', `fieldops ${args.join(' ')}: nothing on stderr (no EPIPE, no stack)`);
  }
});
