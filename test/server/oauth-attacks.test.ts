import t from 'tap';
import { ADMIN_PASSWORD, ManualClock, dialect, startTestServer } from '../helpers/server.js';
import { oauth, oauthClient } from '../helpers/oauth.js';

/**
 * The OAuth attack checklist (RFC 6749 §10, RFC 6819, RFC 9700, RFC 7009), one test each,
 * then a scan of the logs and of every table for any secret in clear.
 */
t.test(`OAuth attack checklist (${dialect})`, async (t) => {
  const clock = new ManualClock(Date.now());
  const s = await startTestServer(t, { clock, env: { FIELDOPS_THROTTLE_PER_USERNAME: '4', FIELDOPS_THROTTLE_PER_ADDRESS: '50' } });
  if (!s) return;
  const cli = oauthClient(s.url);
  const secrets = new Set<string>([ADMIN_PASSWORD]);
  const token = (form: Record<string, string>) => s.json('/oauth2/token/', { method: 'POST', body: new URLSearchParams(form) });
  const login = async () => {
    const tokens = await cli.password('admin', ADMIN_PASSWORD);
    secrets.add(tokens.access_token);
    secrets.add(tokens.refresh_token!);
    return tokens;
  };
  const authorize = async (params: Record<string, string>, bearer: string) =>
    s.json(`/oauth2/authorize/?${new URLSearchParams({ response_type: 'code', client_id: 'fieldops-cli', ...params })}`, { token: bearer });

  await t.test('RFC 6749 §10.5, RFC 9700 §4.5: a replayed code fails and revokes what it issued', async (t) => {
    const { access_token } = await login();
    const redirect = 'http://127.0.0.1:41000/callback';
    const location = (await authorize({ redirect_uri: redirect }, access_token)).headers.get('location')!;
    const code = new URL(location).searchParams.get('code')!;
    secrets.add(code);
    const issued = await cli.exchange(location, redirect, oauth.nopkce);
    secrets.add(issued.access_token);
    t.equal((await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code, redirect_uri: redirect })).body.error, 'invalid_grant');
    t.equal((await s.request('/users/me', { token: issued.access_token })).status, 401);
  });

  await t.test('RFC 6749 §10.6, RFC 9700 §4.1: redirect URI manipulation is refused without redirecting', async (t) => {
    const { access_token } = await login();
    for (const uri of ['https://evil.example/callback', 'http://127.0.0.1.evil.example/callback', 'http://127.0.0.1:5000/callback/../steal', 'http://127.0.0.1:5000/callback#frag', 'javascript:alert(1)']) {
      const response = await authorize({ redirect_uri: uri }, access_token);
      t.equal(response.status, 400, uri);
      t.equal(response.headers.get('location'), null);
    }
  });

  await t.test('RFC 9700 §2.1.1: PKCE downgrade (a verifier for a code issued without a challenge) fails', async (t) => {
    const { access_token } = await login();
    const redirect = 'http://127.0.0.1:41001/callback';
    const location = (await authorize({ redirect_uri: redirect }, access_token)).headers.get('location')!;
    const code = new URL(location).searchParams.get('code')!;
    t.equal((await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code, redirect_uri: redirect, code_verifier: oauth.generateRandomCodeVerifier() })).body.error, 'invalid_grant');
  });

  await t.test('RFC 9700 §4.14: refresh token reuse revokes the family', async (t) => {
    const first = await login();
    const second = await cli.refresh(first.refresh_token!);
    secrets.add(second.access_token);
    secrets.add(second.refresh_token!);
    t.equal((await token({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: first.refresh_token! })).body.error, 'invalid_grant');
    t.equal((await s.request('/users/me', { token: second.access_token })).status, 401);
  });

  await t.test('RFC 7009: revoked tokens stop working; RFC 6749 §10.3: expired ones too', async (t) => {
    const revoked = await login();
    await cli.revoke(revoked.access_token);
    t.equal((await s.request('/users/me', { token: revoked.access_token })).status, 401);
    const expiring = await login();
    clock.advance(3601_000);
    t.equal((await s.request('/users/me', { token: expiring.access_token })).status, 401);
  });

  await t.test('RFC 6819 §4.4.3.6: online guessing is throttled (429 with Retry-After)', async (t) => {
    await s.server.runtime.admin.createUser({ tenant: 'default', username: 'guessed', password: 'Pangolin-Scales-Pass-1' });
    secrets.add('Pangolin-Scales-Pass-1');
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'guessed', password: `guess-${i}-attempt` })).status);
    t.same(statuses, [400, 400, 400, 400, 429, 429]);
  });

  await t.test('RFC 6749 §5.1: token responses are not cached', async (t) => {
    const response = await s.request('/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: ADMIN_PASSWORD }) });
    t.equal(response.headers.get('cache-control'), 'no-store');
    t.equal(response.headers.get('pragma'), 'no-cache');
    const body = (await response.json()) as { access_token: string; refresh_token: string };
    secrets.add(body.access_token);
    secrets.add(body.refresh_token);
  });

  await t.test('no token, code or password in clear: not in the logs, not in any table', async (t) => {
    const logs = s.logs();
    const { knex } = s.server.runtime.database;
    const tables = dialect === 'sqlite'
      ? ((await knex.raw("SELECT name FROM sqlite_master WHERE type = 'table'")) as Array<{ name: string }>).map((row) => row.name)
      : ((await knex.raw("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'")).rows as Array<{ name: string }>).map((row) => row.name);
    const dump = JSON.stringify(await Promise.all(tables.map((table) => knex(table).select())));
    t.ok(secrets.size >= 10, `${secrets.size} secrets to look for`);
    const leaked = [...secrets].filter((secret) => logs.includes(secret) || dump.includes(secret));
    t.same(leaked, [], 'none found');
    t.ok(dump.length > 1000 && logs.length > 1000, 'there was something to scan');
  });
});
