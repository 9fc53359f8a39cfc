/**
 * Issue 14 item 1: a first start that cannot listen changes nothing (no admin created with an
 * unprinted password), says so with a hint, and the next start prints the password; a lost
 * password can be set again with `fieldops admin set-password`. The real binary throughout.
 */
import net from 'node:net';
import t, { type Test } from 'tap';
import { openDatabase } from '../../server/db/knex.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';

const STACK = /\n\s+at \S/;

async function occupiedPort(t: Test): Promise<number> {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  return (blocker.address() as net.AddressInfo).port;
}

const token = async (url: string, username: string, password: string) =>
  (await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username, password }) })).status;

t.test(`a first start on a port in use loses nothing (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.dataDir, LOG_LEVEL: 'warn' };
  const port = await occupiedPort(t);

  const busy = await runCli(['serve', '--port', String(port)], { env });
  t.equal(busy.code, 1, 'exit 1');
  t.match(busy.stderr, new RegExp(`^error: port ${port} is already in use`, 'm'));
  t.match(busy.stderr, /^hint: .*--port/m);
  t.notMatch(busy.stderr, STACK, 'no stack');
  t.notMatch(busy.stderr, /unexpected error/);

  const database = openDatabase(db.config);
  t.teardown(() => database.close());
  const migrated = await database.knex.schema.hasTable('users');
  const users = migrated ? Number((await database.knex('users').count({ n: '*' }))[0]!.n) : 0;
  t.equal(users, 0, 'no user was created by the failed start (it stopped before migrating)');

  const next = serveProcess(env);
  const url = await next.url;
  const password = /admin password \(shown only this once\): (\S+)/.exec(next.output())?.[1];
  t.ok(password, 'the next start prints the generated password');
  t.equal(await token(url, 'admin', password!), 200, 'and it works');

  const reset = await runCli(['admin', 'set-password', '--username', 'admin', '--password-stdin'], { env, input: 'Fresh-Savanna-Key-42\n' });
  t.equal(reset.code, 0, reset.stderr);
  t.match(reset.stdout, /set the password of admin/);
  t.equal(await token(url, 'admin', 'Fresh-Savanna-Key-42'), 200, 'the new password works');
  t.equal(await token(url, 'admin', password!), 400, 'the old one no longer does');

  const weak = await runCli(['admin', 'set-password', '--username', 'admin', '--password-stdin'], { env, input: 'admin12345\n' });
  t.equal(weak.code, 1, 'the password rules apply');
  t.match(weak.stderr, /password: /);
  const noInput = await runCli(['admin', 'set-password', '--username', 'admin'], { env });
  t.equal(noInput.code, 2, 'no terminal to prompt on and no --password-stdin');
  t.match(noInput.stderr, /hint: pipe it in with --password-stdin/);
  const ghost = await runCli(['admin', 'set-password', '--username', 'ghost', '--password-stdin'], { env, input: 'Fresh-Savanna-Key-42\n' });
  t.equal(ghost.code, 1);
  t.match(ghost.stderr, /No user "ghost"/);

  next.child.kill('SIGTERM');
  t.equal(await next.exited, 0);
  t.match(next.output(), /fieldops: stopped/, 'the server says when it has finished shutting down');
});
