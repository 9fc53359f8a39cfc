/**
 * Issue 24 items 9 and 10: an admin command says which database it works on and never creates
 * one unless told to (`--create`); a DATABASE_URL with a scheme fieldops does not use is an
 * error, for `serve` and `admin` alike, never a SQLite file named after it. The real binary,
 * run in a folder of its own (the default database is ./data/fieldops.sqlite3 there).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { openDatabase } from '../../server/db/knex.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';

const STACK = /\n\s+at \S/;

function folder(t: Test): { dir: string; env: Record<string, string> } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-admin-db-')));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { dir, env: { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'share'), LOG_LEVEL: 'warn' } };
}

function expectUserError(t: Test, result: CliResult, message: RegExp, hint: RegExp) {
  t.equal(result.code, 1, 'exit 1');
  t.match(result.stderr, message);
  t.match(result.stderr, hint);
  t.notMatch(result.stderr, STACK, 'no stack');
  t.notMatch(result.stderr + result.stdout, /unexpected error/);
}

t.test('an admin command without a database refuses to create one (sqlite)', async (t) => {
  const { dir, env } = folder(t);
  const expected = path.join(dir, 'data', 'fieldops.sqlite3');
  const result = await runCli(['admin', 'create-user', '--tenant', 'default', '--username', 'lead', '--password-stdin'], { env, cwd: dir, input: 'Long-Passphrase-9x\n' });
  t.equal(result.stderr.split('\n')[0], `using database: ${expected}`, 'the first line names the database');
  expectUserError(t, result, new RegExp(`^error: no database at ${expected}$`, 'm'), /^hint: .*DATABASE_URL.*--data-dir.*fieldops serve.*--create/m);
  t.notOk(fs.existsSync(path.join(dir, 'data')), 'nothing was created');

  // Each admin command opens the database the same way.
  for (const args of [['create-tenant', '--name', 'north'], ['grant', '--username', 'x', '--permission', 'view_user'], ['set-map', '--tenant', 'default', '--name', 'm', '--center', '1,2', '--zoom', '3'], ['migrate-files', '--to', 's3://bucket/x', '--dry-run'], ['unlock', '--username', 'x']]) {
    const other = await runCli(['admin', ...args], { env, cwd: dir });
    t.match(other.stderr, /^error: no database at /m, `admin ${args[0]} refuses too`);
    t.equal(other.code, 1);
  }
  t.notOk(fs.existsSync(path.join(dir, 'data')), 'still nothing');

  const elsewhere = await runCli(['admin', 'create-tenant', '--name', 'north', '--data-dir', path.join(dir, 'srv')], { env, cwd: dir });
  t.match(elsewhere.stderr, `using database: ${path.join(dir, 'srv', 'fieldops.sqlite3')}`, '--data-dir names the database as for serve');
  t.equal(elsewhere.code, 1);
});

t.test('--create sets a database up as the first start of serve does (sqlite)', async (t) => {
  const { dir, env } = folder(t);
  const file = path.join(dir, 'data', 'fieldops.sqlite3');
  const created = await runCli(['admin', 'create-tenant', '--name', 'north', '--create', '--json'], { env: { ...env, FIELDOPS_ADMIN_PASSWORD: 'Baobab-Shade-Seventy-7' }, cwd: dir });
  t.equal(created.code, 0, created.stderr);
  const body = JSON.parse(created.stdout);
  t.equal(body.database, file, 'the JSON names the database');
  t.equal(body.tenant.name, 'north');
  t.match(created.stderr, /created the database/);
  t.ok(fs.existsSync(file));
  const database = openDatabase({ dialect: 'sqlite', filename: file, synchronous: 'NORMAL' });
  t.teardown(() => database.close());
  t.same((await database.knex('tenants').orderBy('name').pluck('name')), ['default', 'north'], 'with the default tenant');
  t.same(await database.knex('users').pluck('username'), ['admin'], 'and its admin');
  t.same(await database.knex('oauth_clients').pluck('client_id'), ['fieldops-cli'], 'and the CLI client');

  const next = await runCli(['admin', 'create-tenant', '--name', 'south'], { env, cwd: dir });
  t.equal(next.code, 0, 'an existing database needs no --create');
  t.equal(next.stderr, `using database: ${file}\n`);
  t.equal(next.stdout, 'created tenant south\n');
});

t.test(`an uninitialised database is refused without --create (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const { dir, env } = folder(t);
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  // An empty database: a new PostgreSQL one, or an empty SQLite file.
  if (db.config.dialect === 'sqlite') fs.writeFileSync(db.location, '');
  const where = db.location;
  const refused = await runCli(['admin', 'create-tenant', '--name', 'north', '--database', db.location], { env, cwd: dir });
  t.equal(refused.stderr.split('\n')[0], `using database: ${where}`);
  expectUserError(t, refused, /^error: .* has no fieldops tables/m, /^hint: .*--create/m);
  const database = openDatabase(db.config);
  t.teardown(() => database.close());
  t.notOk(await database.knex.schema.hasTable('knex_migrations'), 'nothing was migrated');

  const json = await runCli(['admin', 'create-tenant', '--name', 'north', '--database', db.location, '--create', '--json'], { env: { ...env, FIELDOPS_ADMIN_PASSWORD: 'Baobab-Shade-Seventy-7' }, cwd: dir });
  t.equal(json.code, 0, json.stderr);
  t.equal(JSON.parse(json.stdout).database, where);
  t.same(await database.knex('tenants').orderBy('name').pluck('name'), ['default', 'north']);
});

t.test('a database URL with a scheme fieldops does not use is an error', async (t) => {
  const { dir, env } = folder(t);
  for (const url of ['postgress://postgres:secret@127.0.0.1:5432/fieldops', 'mysql://root@localhost/fieldops', 'localhost:5432/fieldops', 'postgres:fieldops']) {
    for (const args of [['admin', 'create-tenant', '--name', 'x'], ['serve', '--port', '0']]) {
      // NOTE: a serve that took the URL for a file name would run until the time-out.
      const viaEnv = await runCli(args, { env: { ...env, DATABASE_URL: url }, cwd: dir, timeoutMs: 15000 });
      expectUserError(t, viaEnv, /^error: DATABASE_URL /m, /^hint: .*postgres:\/\/.*sqlite:.*file:/m);
      t.notMatch(viaEnv.stderr, /secret/, 'the password is not repeated');
      const viaOption = await runCli([...args, '--database', url, ...(args[0] === 'admin' ? ['--create'] : [])], { env, cwd: dir, timeoutMs: 15000 });
      expectUserError(t, viaOption, /^error: --database /m, /^hint: /m);
    }
  }
  t.match((await runCli(['serve', '--port', '0', '--database', 'postgress://x@h/db'], { env, cwd: dir, timeoutMs: 15000 })).stderr, /did you mean postgres:\/\//, 'a near miss is named');
  t.same(fs.readdirSync(dir).filter((name) => name !== 'config' && name !== 'share'), [], 'no file or folder was created for any of them');
});

t.test('sqlite:, file: and plain paths name SQLite files', async (t) => {
  const { dir, env } = folder(t);
  const forms: Array<[string, string]> = [
    ['relative/a.sqlite3', path.join(dir, 'relative/a.sqlite3')],
    ['./b:c.sqlite3', path.join(dir, 'b:c.sqlite3')],
    [`sqlite:${path.join(dir, 'd.sqlite3')}`, path.join(dir, 'd.sqlite3')],
    ['sqlite:e.sqlite3', path.join(dir, 'e.sqlite3')],
    [`file://${path.join(dir, 'f%20g.sqlite3')}`, path.join(dir, 'f g.sqlite3')],
    ['file:h.sqlite3', path.join(dir, 'h.sqlite3')],
  ];
  for (const [value, file] of forms) {
    const result = await runCli(['admin', 'create-tenant', '--name', 'north', '--create', '--json'], { env: { ...env, DATABASE_URL: value, FIELDOPS_ADMIN_PASSWORD: 'Baobab-Shade-Seventy-7' }, cwd: dir });
    t.equal(result.code, 0, `${value}: ${result.stderr}`);
    t.equal(JSON.parse(result.stdout || '{}').database, file, `${value} is ${file}`);
    t.ok(fs.existsSync(file));
  }
  for (const value of ['file://otherhost/x.sqlite3', 'file:x.sqlite3?mode=ro', 'sqlite:', 'file:']) {
    const result = await runCli(['admin', 'create-tenant', '--name', 'north', '--create'], { env: { ...env, DATABASE_URL: value }, cwd: dir });
    expectUserError(t, result, /^error: DATABASE_URL /m, /^hint: /m);
  }
});
