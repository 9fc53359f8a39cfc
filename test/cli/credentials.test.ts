/** The credentials file on its own: locking, atomic replacement, stale locks, corrupt files. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CredentialsFile, type StoredProfile } from '../../sync/auth/credentials-file.js';

const profile = (n: number): StoredProfile => ({
  server: `https://s${n}.example`, username: `u${n}`, clientId: 'fieldops-cli', tokenEndpoint: 'https://s.example/oauth2/token/', revocationEndpoint: null,
  accessToken: `a${n}`, refreshToken: `r${n}`, expiresAt: Date.UTC(2026, 10, 20), tokenType: 'Bearer', loggedInAt: '2026-11-20T10:00:00.000Z',
});

t.test('concurrent updates are serialised by the lock: none is lost', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-cred-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const files = [new CredentialsFile(dir), new CredentialsFile(dir)];
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      files[i % 2]!.update(async (data) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        data.profiles[`p${i}`] = profile(i);
      }),
    ),
  );
  const data = await files[0]!.read();
  t.equal(Object.keys(data.profiles).length, 20);
  t.same(data.profiles.p7, profile(7), 'round trip');
  t.same(fs.readdirSync(dir).sort(), ['credentials.json'], 'no lock or temporary file left behind');
  t.match(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8'), /"access_token": "a7"/, 'snake_case on disk');
});

t.test('a lock left by a dead process is taken over', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-cred-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'credentials.json.lock'), '999999999');
  const file = new CredentialsFile(dir);
  await file.update((data) => void (data.profiles.x = profile(1)));
  t.ok(await file.profile('x'));
});

t.test('a corrupt file: a clear error saying what to do', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-cred-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'credentials.json'), '{"profiles": ', { mode: 0o600 });
  await t.rejects(new CredentialsFile(dir).read(), { message: /is not a valid credentials file/, hint: /log in again/ });
});
