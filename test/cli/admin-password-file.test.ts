/**
 * Issue 24 item 8: FIELDOPS_ADMIN_PASSWORD_FILE exists to keep the generated admin password out
 * of stderr (kept in logs). A file that cannot be written used to print the password there; now
 * the start fails before migrating (`error:` + `hint:`, exit 1), the password is never printed,
 * no admin is left behind, and the next start with a writable file sets up as a first start.
 * A write that fails after the check rolls the set-up back (test/server/bootstrap.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openDatabase } from '../../server/db/knex.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { serveProcess } from '../helpers/serve-process.js';

const STACK = /\n\s+at \S/;

t.test(`an unwritable FIELDOPS_ADMIN_PASSWORD_FILE fails the start, printing no password (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-password-file-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'a-file'), 'x');
  fs.mkdirSync(path.join(dir, 'a-folder'));
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'warn' };

  const cases: Array<[string, RegExp]> = [
    [path.join(dir, 'no-such-folder', 'admin-password'), /its folder does not exist/],
    [path.join(dir, 'a-file', 'admin-password'), /a part of that path is a regular file/],
    [path.join(dir, 'a-folder'), /is a directory/],
  ];
  for (const [file, why] of cases) {
    // NOTE: a start that went on would serve until the time-out; the test then fails on the exit code.
    const result = await runCli(['serve', '--port', '0'], { env: { ...env, FIELDOPS_ADMIN_PASSWORD_FILE: file }, timeoutMs: 15000 });
    t.equal(result.code, 1, `${file}: exit 1`);
    t.match(result.stderr, new RegExp(`^error: FIELDOPS_ADMIN_PASSWORD_FILE ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be written`, 'm'));
    t.match(result.stderr, why);
    t.match(result.stderr, /^hint: .*FIELDOPS_ADMIN_PASSWORD_FILE/m);
    t.notMatch(result.stderr + result.stdout, /admin password|password written|shown only/, 'no password, and none announced');
    t.notMatch(result.stderr, STACK, 'no stack');
  }

  const database = openDatabase(db.config);
  t.teardown(() => database.close());
  t.notOk(await database.knex.schema.hasTable('knex_migrations'), 'the failed starts stopped before migrating');

  const file = path.join(dir, 'initial-admin-password');
  const next = serveProcess({ ...env, FIELDOPS_ADMIN_PASSWORD_FILE: file });
  const url = await next.url;
  const password = fs.readFileSync(file, 'utf8').trim();
  t.notMatch(next.output(), password, 'the next start writes the password to the file only');
  t.match(next.output(), `admin password written to ${file}`);
  const login = await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password }) });
  t.equal(login.status, 200, 'and it is the admin\'s');
  next.child.kill('SIGTERM');
  t.equal(await next.exited, 0);

  // The file is written on a first start only: a later start (the unit and the image keep the
  // variable set) serves even when it can no longer be written, and says so.
  const later = serveProcess({ ...env, FIELDOPS_ADMIN_PASSWORD_FILE: path.join(dir, 'no-such-folder', 'admin-password') });
  const laterUrl = await later.url;
  t.equal((await fetch(`${laterUrl}/healthz`)).status, 200, 'a start after the first serves with an unwritable file');
  t.match(later.output(), /FIELDOPS_ADMIN_PASSWORD_FILE cannot be written; only a first start writes it/, 'and warns');
  later.child.kill('SIGTERM');
  t.equal(await later.exited, 0);
});
