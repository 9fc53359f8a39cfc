/**
 * Issue 24 item 11: the CLI's own folders (home, config folder, mirror folder) that cannot be
 * written are an `error:` naming the folder with a `hint:` naming the setting that moves it,
 * exit 1, no stack; and a login whose tokens cannot be saved revokes them at the server (RFC
 * 7009), so no valid session is left behind that nobody holds. The real binary, a real server.
 *
 * Two ways to make a folder unwritable, checked here as root (where chmod does not stop writes):
 * a path under a regular file (ENOTDIR/EEXIST: works for everyone) and the immutable attribute
 * (`chattr +i`: EPERM even for root; test/sync/unwritable.ts falls back to chmod for other users
 * and skips when neither works, e.g. on tmpfs).
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { CliResult } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startKillProxy } from '../sync/kill-proxy.js';
import { makeUnwritable } from '../sync/unwritable.js';

const STACK = /\n\s+at \S/;

function expectUserError(t: Test, result: CliResult, message: RegExp, hint: RegExp) {
  t.equal(result.code, 1, `exit 1 (${result.stderr})`);
  t.match(result.stderr, /^error: /m);
  t.match(result.stderr, message);
  t.match(result.stderr, hint);
  t.notMatch(result.stderr, STACK, 'no stack');
  t.notMatch(result.stderr + result.stdout, /unexpected error|a bug/);
}

/** What the server says of tokens: /users/me with the access token, a refresh with the refresh token. */
async function tokenState(s: TestServer, tokens: { access_token: string; refresh_token: string }) {
  const me = await s.request('/users/me', { token: tokens.access_token });
  await me.arrayBuffer();
  const refresh = await s.request('/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: tokens.refresh_token }) });
  await refresh.arrayBuffer();
  return { me: me.status, refresh: refresh.status };
}

t.test('folders that cannot be written', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  // The proxy shows the tokens the server issued, so the test can check they were revoked.
  const proxy = await startKillProxy(t, s.url);
  let issued: Array<{ access_token: string; refresh_token: string }> = [];
  proxy.onResponse = (_i, method, url, status, body) => {
    if (method === 'POST' && url.startsWith('/oauth2/token/') && status === 200) issued.push(JSON.parse(body.toString()));
  };
  const revocations = () => proxy.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/oauth2/revoke_token/') && r.status === 200).length;

  await t.test('HOME under a regular file: the config folder is named, with the variable that moves it', async (t) => {
    const cli = cliEnv(t);
    const file = path.join(cli.dir, 'a-file');
    fs.writeFileSync(file, 'x');
    // Empty XDG variables count as unset: the folders derive from HOME.
    const env = { HOME: path.join(file, 'home'), XDG_CONFIG_HOME: '', XDG_DATA_HOME: '' };
    issued = [];
    const login = await cli.run(['login', '--server', proxy.url, '--username', 'admin', '--password-stdin'], { env, input: 'whatever\n' });
    expectUserError(t, login, /cannot read the credentials file .*a-file\/home\/\.config\/fieldops\/credentials\.json: a part of that path is a regular file, not a folder \(ENOTDIR\)/, /^hint: make .*a-file\/home\/\.config\/fieldops a folder you can write .*FIELDOPS_CONFIG_DIR/m);
    t.equal(issued.length, 0, 'found before asking the server for tokens');
    const sync = await cli.run(['sync'], { env: { ...env, FIELDOPS_TOKEN: 'x', FIELDOPS_SERVER: proxy.url } });
    expectUserError(t, sync, /cannot read the credentials file/, /FIELDOPS_CONFIG_DIR/);
  });

  await t.test('FIELDOPS_CONFIG_DIR under a regular file', async (t) => {
    const cli = cliEnv(t);
    const file = path.join(cli.dir, 'a-file');
    fs.writeFileSync(file, 'x');
    issued = [];
    const login = await cli.run(['login', '--server', proxy.url, '--username', 'admin', '--password-stdin'], { env: { FIELDOPS_CONFIG_DIR: path.join(file, 'config') }, input: 'Test-Superuser-Passphrase-7\n' });
    t.equal(issued.length, 0, 'no tokens asked for');
    expectUserError(t, login, /cannot read the credentials file .*a-file\/config\/credentials\.json: a part of that path is a regular file/, /^hint: .*FIELDOPS_CONFIG_DIR/m);
  });

  await t.test('a config folder that cannot be written: the issued tokens are revoked', async (t) => {
    const cli = cliEnv(t);
    fs.mkdirSync(cli.configDir, { recursive: true });
    const unwritable = makeUnwritable(t, cli.configDir);
    if (!unwritable.how) return void t.pass('skipped', { skip: unwritable.reason });
    t.comment(`made unwritable with ${unwritable.how}`);
    issued = [];
    const before = revocations();
    const login = await cli.login(proxy.url);
    expectUserError(t, login, new RegExp(`cannot create the lock file ${cli.configDir}/credentials\\.json\\.lock: .*\\((EPERM|EACCES)\\)`), /^hint: make .*config\/fieldops a folder you can write .*FIELDOPS_CONFIG_DIR.*; the tokens the server had just issued were revoked there/m);
    t.equal(issued.length, 1, 'the server had issued tokens');
    t.equal(revocations() - before, 2, 'refresh and access token revoked (RFC 7009)');
    t.same(await tokenState(s, issued[0]!), { me: 401, refresh: 400 }, 'neither token works any more');
  });

  await t.test('a HOME that cannot be written (nothing in it yet): the same, for the folder it needs', async (t) => {
    const cli = cliEnv(t);
    const home = path.join(cli.dir, 'home');
    fs.mkdirSync(home);
    const unwritable = makeUnwritable(t, home);
    if (!unwritable.how) return void t.pass('skipped', { skip: unwritable.reason });
    issued = [];
    const login = await cli.run(['login', '--server', proxy.url, '--username', 'admin', '--password-stdin'], { env: { HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '' }, input: 'Test-Superuser-Passphrase-7\n' });
    expectUserError(t, login, new RegExp(`cannot create the folder ${home}/\\.config/fieldops for the credentials: .*\\((EPERM|EACCES)\\)`), /FIELDOPS_CONFIG_DIR .*; the tokens the server had just issued were revoked there/);
    t.same(await tokenState(s, issued[0]!), { me: 401, refresh: 400 }, 'revoked');
  });

  await t.test('mirror folder under a regular file: FIELDOPS_MIRROR and XDG_DATA_HOME', async (t) => {
    const cli = cliEnv(t);
    t.equal((await cli.login(proxy.url)).code, 0);
    const file = path.join(cli.dir, 'a-file');
    fs.writeFileSync(file, 'x');
    const viaMirror = await cli.run(['sync'], { env: { FIELDOPS_MIRROR: path.join(file, 'm.sqlite3') } });
    expectUserError(t, viaMirror, /cannot create the folder .*a-file for the mirror: a part of that path is a regular file, not a folder/, /^hint: make .*a-file a folder you can write .*FIELDOPS_MIRROR .*XDG_DATA_HOME/m);
    const viaData = await cli.run(['sync'], { env: { XDG_DATA_HOME: path.join(file, 'share') } });
    expectUserError(t, viaData, /cannot create the folder .*a-file\/share\/fieldops for the mirror: a part of that path is a regular file/, /FIELDOPS_MIRROR/);
    const json = await cli.run(['sync', '--json'], { env: { FIELDOPS_MIRROR: path.join(file, 'm.sqlite3') } });
    t.equal(json.stdout, '', '--json: nothing on stdout, the error on stderr');
  });

  await t.test('a mirror folder that cannot be written', async (t) => {
    const cli = cliEnv(t);
    t.equal((await cli.login(proxy.url)).code, 0);
    const folder = path.join(cli.dir, 'mirrors');
    fs.mkdirSync(folder);
    const unwritable = makeUnwritable(t, folder);
    if (!unwritable.how) return void t.pass('skipped', { skip: unwritable.reason });
    const sync = await cli.run(['sync'], { env: { FIELDOPS_MIRROR: path.join(folder, 'm.sqlite3') } });
    expectUserError(t, sync, /cannot create the mirror .*mirrors\/m\.sqlite3: its folder is not writable \(SQLITE_CANTOPEN\)/, /^hint: make .*mirrors a folder you can write .*FIELDOPS_MIRROR/m);
    t.notOk(fs.existsSync(path.join(folder, 'm.sqlite3')));
  });
});
