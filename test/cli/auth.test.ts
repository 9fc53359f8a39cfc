/**
 * `fieldops login / whoami / logout` through the real binary against a real server: tokens in a
 * 0600 file (never the password), refresh before expiry and after a 401 (rotation saved, no
 * family revocation when processes refresh at once), FIELDOPS_TOKEN, named profiles, and
 * logout revoking at the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { cliEnv } from '../helpers/cli-env.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

const credentials = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8'));

/** What the server says about a refresh token (without spending a good one twice). */
async function refreshStatus(s: TestServer, refreshToken: string): Promise<number> {
  const response = await s.request('/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: refreshToken }) });
  await response.arrayBuffer();
  return response.status;
}

t.test('login, whoami, logout', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const cli = cliEnv(t);

  await t.test('login stores tokens in a private file, never the password', async (t) => {
    const result = await cli.login(s.url);
    t.equal(result.code, 0, result.stderr);
    t.match(result.stdout, /Logged in to http:\/\/127\.0\.0\.1:\d+ as admin, profile "default"/);
    const file = path.join(cli.configDir, 'credentials.json');
    t.equal(fs.statSync(file).mode & 0o777, 0o600, 'credentials are 0600');
    t.equal(fs.statSync(cli.configDir).mode & 0o777, 0o700, 'their directory is 0700');
    const text = fs.readFileSync(file, 'utf8');
    t.notOk(text.includes(ADMIN_PASSWORD), 'the password is not stored');
    const stored = credentials(cli.configDir).profiles.default;
    t.equal(stored.username, 'admin');
    t.equal(stored.server, s.url);
    t.ok(stored.access_token && stored.refresh_token, 'both tokens saved');
    t.ok(Date.parse(stored.expires_at) > Date.now() + 3000 * 1000, 'expiry from expires_in');
    t.notOk(s.logs().includes(ADMIN_PASSWORD), 'and the server did not log it either');
  });

  await t.test('whoami asks the server', async (t) => {
    const result = await cli.run(['whoami']);
    t.equal(result.code, 0, result.stderr);
    t.match(result.stdout, /^admin .*on http:\/\/127\.0\.0\.1:\d+ via profile "default"/);
    const json = await cli.json(['whoami']);
    t.equal(json.body.username, 'admin');
    t.equal(json.body.via, 'profile');
  });

  await t.test('a credentials file readable by others is tightened, with a warning', async (t) => {
    const file = path.join(cli.configDir, 'credentials.json');
    fs.chmodSync(file, 0o644);
    const result = await cli.run(['whoami']);
    t.equal(result.code, 0);
    t.match(result.stderr, /readable by other users; its mode is now 0600/);
    t.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  await t.test('a revoked access token is renewed once after the 401, and the rotation saved', async (t) => {
    const before = credentials(cli.configDir).profiles.default;
    const revoke = await s.request('/oauth2/revoke_token/', { method: 'POST', body: new URLSearchParams({ client_id: 'fieldops-cli', token: before.access_token }) });
    t.equal(revoke.status, 200);
    t.equal((await s.request('/users/me', { token: before.access_token })).status, 401, 'the old access token is dead');
    const result = await cli.run(['whoami']);
    t.equal(result.code, 0, result.stderr);
    const after = credentials(cli.configDir).profiles.default;
    t.not(after.access_token, before.access_token, 'new access token saved');
    t.not(after.refresh_token, before.refresh_token, 'rotated refresh token saved');
    t.equal((await s.request('/users/me', { token: after.access_token })).status, 200);
  });

  await t.test('wrong password: a clear message, nothing stored, exit 1', async (t) => {
    const other = cliEnv(t);
    const result = await other.login(s.url, 'admin', 'Not-The-Password-42');
    t.equal(result.code, 1);
    t.match(result.stderr, /error: login refused: wrong username or password/);
    t.match(result.stderr, /hint: /);
    t.notOk(fs.existsSync(path.join(other.configDir, 'credentials.json')));
  });

  await t.test('usage errors exit 2 with a hint', async (t) => {
    const other = cliEnv(t);
    const noTty = await other.run(['login', '--server', s.url, '--username', 'admin']);
    t.equal(noTty.code, 2, 'no terminal to prompt on and no --password-stdin');
    t.match(noTty.stderr, /standard input is not a terminal[\s\S]*--password-stdin/);
    const noServer = await other.run(['login', '--username', 'admin', '--password-stdin'], { input: 'x' });
    t.equal(noServer.code, 2);
    t.match(noServer.stderr, /hint: pass --server/);
    const badProfile = await other.run(['whoami', '--profile', '../etc']);
    t.equal(badProfile.code, 2);
    const notLoggedIn = await other.run(['whoami']);
    t.equal(notLoggedIn.code, 1);
    t.match(notLoggedIn.stderr, /not logged in \(profile "default"\)[\s\S]*fieldops login/);
  });

  await t.test('named profiles: --profile and FIELDOPS_PROFILE', async (t) => {
    await s.server.runtime.admin.createUser({ tenant: 'default', username: 'ranger.one', password: 'Savanna-Walk-Path-9', permissions: ['view_patroltype'] } as never);
    const login = await cli.login(s.url, 'ranger.one', 'Savanna-Walk-Path-9', ['--profile', 'field']);
    t.equal(login.code, 0, login.stderr);
    t.match((await cli.run(['whoami', '--profile', 'field'])).stdout, /^ranger\.one /);
    t.match((await cli.run(['whoami'], { env: { FIELDOPS_PROFILE: 'field' } })).stdout, /^ranger\.one /);
    t.match((await cli.run(['whoami'])).stdout, /^admin /, 'the default profile is untouched');
    t.same(Object.keys(credentials(cli.configDir).profiles).sort(), ['default', 'field']);
  });

  await t.test('FIELDOPS_TOKEN: used as given, nothing read or written', async (t) => {
    const other = cliEnv(t);
    const { access_token } = await s.login();
    const result = await other.run(['whoami'], { env: { FIELDOPS_TOKEN: access_token, FIELDOPS_SERVER: s.url } });
    t.equal(result.code, 0, result.stderr);
    t.match(result.stdout, /^admin .* via FIELDOPS_TOKEN/);
    t.notOk(fs.existsSync(other.configDir), 'no credentials file created');
    const noServer = await other.run(['whoami'], { env: { FIELDOPS_TOKEN: access_token } });
    t.equal(noServer.code, 2);
    t.match(noServer.stderr, /FIELDOPS_SERVER/);
    const bad = await other.run(['whoami'], { env: { FIELDOPS_TOKEN: 'not-a-token', FIELDOPS_SERVER: s.url } });
    t.equal(bad.code, 1);
    t.match(bad.stderr, /refused the credentials[\s\S]*FIELDOPS_TOKEN/);
  });

  await t.test('logout revokes at the server and forgets locally', async (t) => {
    const stored = credentials(cli.configDir).profiles.field;
    const result = await cli.run(['logout', '--profile', 'field']);
    t.equal(result.code, 0, result.stderr);
    t.match(result.stdout, /Logged out of .* the tokens are revoked/);
    t.equal((await s.request('/users/me', { token: stored.access_token })).status, 401, 'access token revoked');
    t.equal(await refreshStatus(s, stored.refresh_token), 400, 'refresh token revoked');
    t.notOk(credentials(cli.configDir).profiles.field, 'profile forgotten');
    t.match((await cli.run(['logout', '--profile', 'field'])).stdout, /not logged in/, 'logging out twice is harmless');
  });
});

t.test('tokens close to expiry are refreshed first, once, even by concurrent processes', async (t) => {
  // 30 s tokens are always inside the 60 s refresh margin: every run refreshes.
  const s = await startTestServer(t, { env: { FIELDOPS_ACCESS_TOKEN_TTL: '30' } });
  if (!s) return;
  const cli = cliEnv(t);
  t.equal((await cli.login(s.url)).code, 0);
  const first = credentials(cli.configDir).profiles.default;

  const runs = await Promise.all([cli.run(['whoami']), cli.run(['whoami']), cli.run(['whoami'])]);
  t.same(runs.map((r) => r.code), [0, 0, 0], runs.map((r) => r.stderr).join('\n'));
  const after = credentials(cli.configDir).profiles.default;
  t.not(after.refresh_token, first.refresh_token, 'refreshed before use');
  // Had two processes spent the same refresh token, the server would have revoked the family.
  const again = await cli.run(['whoami']);
  t.equal(again.code, 0, `the token family is intact: ${again.stderr}`);
  // And that detection is real: spending the first (rotated) token now revokes the family.
  t.equal(await refreshStatus(s, first.refresh_token), 400, 'the first refresh token was rotated away');
  const revoked = await cli.run(['whoami']);
  t.equal(revoked.code, 1);
  t.match(revoked.stderr, /session has expired or was revoked[\s\S]*fieldops login/);
});

t.test('logout while the server is down keeps the session (or forgets it with --local)', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1' });
  t.equal((await cli.login(s.url)).code, 0);
  await s.server.close();
  const result = await cli.run(['logout']);
  t.equal(result.code, 1);
  t.match(result.stderr, /could not revoke the tokens.*still logged in[\s\S]*logout --local/);
  t.ok(credentials(cli.configDir).profiles.default, 'still there, so logout can be retried');
  const local = await cli.run(['logout', '--local']);
  t.equal(local.code, 0, local.stderr);
  t.match(local.stdout, /not revoked at the server/);
  t.notOk(credentials(cli.configDir).profiles.default);
});
