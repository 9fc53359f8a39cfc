/**
 * Issue 24 item 13: a login lockout (429 after failed attempts) can be lifted by the
 * administrator. `admin set-password` clears the username's failed-login count (and says so);
 * `admin unlock` clears the count of a username, a client address or a client_id. The real
 * binary, against a real server sharing its database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';

const ADMIN_PASSWORD = 'Baobab-Shade-Seventy-7';
const SECRET = 'gateway-secret-abcdefgh';
const STACK = /\n\s+at \S/;

t.test(`set-password and unlock lift login lockouts (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-unlock-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'warn', FIELDOPS_ADMIN_PASSWORD: ADMIN_PASSWORD };
  const server = serveProcess({ ...env, FIELDOPS_THROTTLE_PER_USERNAME: '2', FIELDOPS_THROTTLE_PER_ADDRESS: '6', FIELDOPS_THROTTLE_PER_CLIENT: '2' });
  t.teardown(() => void server.child.kill('SIGTERM'));
  const url = await server.url;
  const admin = (args: string[], input?: string) => runCli(['admin', ...args], { env, input });
  const token = async (form: Record<string, string>) => (await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', ...form }) })).status;
  const lockOut = async (form: Record<string, string>) => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await token(form));
    return statuses;
  };

  t.equal((await admin(['create-user', '--tenant', 'default', '--username', 'ranger', '--password-stdin'], 'Long-Passphrase-9x\n')).code, 0);
  // Two failures, then the lockout: the refused attempt is counted too (one, however many follow).
  t.same(await lockOut({ username: 'ranger', password: 'wrong-password-1' }), [400, 400, 429], 'two failures, then locked');

  const reset = await admin(['set-password', '--username', 'ranger', '--password-stdin'], 'Fresh-Savanna-Key-42\n');
  t.equal(reset.code, 0, reset.stderr);
  t.match(reset.stdout, /set the password of ranger; .*sessions are revoked.*failed-login count is cleared \(3 failed attempts\)/);
  t.equal(await token({ username: 'ranger', password: 'Fresh-Savanna-Key-42' }), 200, 'the new password works at once');

  t.same(await lockOut({ username: 'ranger', password: 'wrong-password-2' }), [400, 400, 429]);
  const unlock = await admin(['unlock', '--username', 'RANGER', '--json']);
  t.equal(unlock.code, 0, unlock.stderr);
  t.same(JSON.parse(unlock.stdout), { database: db.location, cleared: [{ username: 'RANGER', failures: 3 }] }, 'usernames are case-insensitive, as at login');
  t.equal(await token({ username: 'ranger', password: 'Fresh-Savanna-Key-42' }), 200, 'unlocked');

  // The address has 4 failures kept (refusals on the username never reach it); two more spend it.
  t.equal(await token({ username: 'ghost-1', password: 'wrong-password-3' }), 400);
  t.equal(await token({ username: 'ghost-2', password: 'wrong-password-3' }), 400);
  t.equal(await token({ username: 'admin', password: ADMIN_PASSWORD }), 429, 'the address is locked out');
  const byAddress = await admin(['unlock', '--address', '127.0.0.1']);
  t.equal(byAddress.code, 0, byAddress.stderr);
  t.match(byAddress.stdout, /^cleared 7 failed attempts of address 127\.0\.0\.1$/m);
  t.equal(await token({ username: 'admin', password: ADMIN_PASSWORD }), 200, 'unlocked');

  t.equal((await admin(['create-client', '--tenant', 'default', '--client-id', 'gw', '--secret-stdin', '--grant', 'password'], `${SECRET}\n`)).code, 0);
  t.same(await lockOut({ client_id: 'gw', client_secret: 'not-the-secret-0000', username: 'admin', password: ADMIN_PASSWORD }), [401, 401, 429]);
  const byClient = await admin(['unlock', '--client-id', 'gw', '--username', 'nobody']);
  t.equal(byClient.code, 0, byClient.stderr);
  t.match(byClient.stdout, /^cleared 3 failed attempts of client gw$/m);
  t.match(byClient.stdout, /^username nobody had no failed attempts$/m);
  t.equal(await token({ client_id: 'gw', client_secret: SECRET, username: 'admin', password: ADMIN_PASSWORD }), 200, 'unlocked');

  const nothing = await admin(['unlock']);
  t.equal(nothing.code, 2, 'unlock needs something to unlock');
  t.match(nothing.stderr, /^error: .*--username.*--address.*--client-id/m);
  t.match(nothing.stderr, /^hint: /m);
  t.notMatch(nothing.stderr, STACK);

  const help = await runCli(['admin', 'unlock', '--help']);
  t.match(help.stdout, /--username/);
  t.match(help.stdout, /--json/);
});
