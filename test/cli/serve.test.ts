import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import t from 'tap';
import { binPath } from '../helpers/cli.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { noteChildOutput } from '../helpers/warnings.js';

/** Starts `fieldops serve` and resolves with its URL once the banner is out. */
function serve(env: Record<string, string>) {
  const child = spawn(process.execPath, [binPath, 'serve', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', FIELDOPS_PASSWORD_HASH_COST: '4096', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      noteChildOutput(stderr, 'fieldops serve');
      resolve(code);
    }),
  );
  const ready = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    exited.then(() => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return { child, ready, exited, stderr: () => stderr };
}

t.test(`fieldops serve: first start, second start, graceful shutdown (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.location, FIELDOPS_DATA_DIR: db.dataDir };

  const first = serve(env);
  const url = await first.ready;
  const password = /admin password \(shown only this once\): (\S+)/.exec(first.stderr())?.[1];
  t.ok(password, 'a generated admin password is printed on first start');
  const login = await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: password! }) });
  t.equal(login.status, 200, 'the printed password works');

  // A request whose body is still arriving when SIGTERM comes must still be answered.
  const { port, hostname } = new URL(url);
  const inFlight = new Promise<number>((resolve, reject) => {
    const request = http.request({ host: hostname, port, method: 'POST', path: '/oauth2/token/', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '38' } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.write('grant_type=password&client_id=');
    setTimeout(() => {
      first.child.kill('SIGTERM');
      setTimeout(() => request.end('xyz12345'), 300);
    }, 200);
  });
  t.equal(await inFlight, 401, 'the in-flight request completed (unknown client)');
  t.equal(await first.exited, 0, 'exit 0 after SIGTERM');
  t.match(first.stderr(), /shutting down/);

  const second = serve(env);
  await second.ready;
  t.notMatch(second.stderr(), /admin password/, 'the password is printed only once');
  second.child.kill('SIGINT');
  t.equal(await second.exited, 0);
});

t.test(`FIELDOPS_ADMIN_PASSWORD_FILE: the generated password goes to a 0600 file, not to stderr (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-admin-file-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'initial-admin-password');
  // A world-readable file left at the path, and a symlink would be worse: neither receives the secret.
  const decoy = path.join(dir, 'decoy');
  fs.writeFileSync(decoy, 'old\n', { mode: 0o644 });
  fs.symlinkSync(decoy, file);
  const server = serve({ DATABASE_URL: db.location, FIELDOPS_DATA_DIR: path.join(dir, 'data'), FIELDOPS_ADMIN_PASSWORD_FILE: file });
  const url = await server.ready;
  t.match(server.stderr(), `admin password written to ${file} (mode 0600`, 'stderr names the file');
  const password = fs.readFileSync(file, 'utf8').trim();
  t.ok(password.length >= 16, 'the file holds the password');
  t.notMatch(server.stderr(), password, 'and stderr (kept in logs by services) does not');
  t.equal(fs.lstatSync(file).mode & 0o777, 0o600, 'a private regular file replaced the link');
  t.ok(fs.lstatSync(file).isFile());
  t.equal(fs.readFileSync(decoy, 'utf8'), 'old\n', "the link's target was not written");
  const login = await fetch(`${url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password }) });
  t.equal(login.status, 200, 'the written password works');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
