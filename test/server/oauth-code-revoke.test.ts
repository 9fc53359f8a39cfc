import t from 'tap';
import { ADMIN_PASSWORD, ManualClock, dialect, startTestServer } from '../helpers/server.js';
import { oauth, oauthClient } from '../helpers/oauth.js';

t.test(`OAuth authorization code, revocation and throttling (${dialect})`, async (t) => {
  const clock = new ManualClock(Date.now());
  const s = await startTestServer(t, { clock, env: { FIELDOPS_THROTTLE_PER_USERNAME: '3', FIELDOPS_THROTTLE_PER_ADDRESS: '6' } });
  if (!s) return;
  const cli = oauthClient(s.url);
  const adminToken = (await s.login()).access_token;
  const authorize = (params: Record<string, string>, token = adminToken) =>
    s.json(`/oauth2/authorize/?${new URLSearchParams({ response_type: 'code', client_id: 'fieldops-cli', ...params })}`, { token });
  const token = (form: Record<string, string>) => s.json('/oauth2/token/', { method: 'POST', body: new URLSearchParams(form) });

  await t.test('code + PKCE S256 over a loopback redirect on any port', async (t) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const redirectUri = 'http://127.0.0.1:53682/callback';
    const state = oauth.generateRandomState();
    const response = await authorize({ redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state });
    t.equal(response.status, 200);
    const location = response.headers.get('location')!;
    t.match(location, /^http:\/\/127\.0\.0\.1:53682\/callback\?code=[^&]+&state=/);
    t.equal(response.headers.get('cache-control'), 'no-store');
    const tokens = await cli.exchange(location, redirectUri, verifier, state);
    t.ok(tokens.access_token);
    t.equal((await s.json('/users/me', { token: tokens.access_token })).body.data.username, 'admin');
  });

  await t.test('a wrong or missing verifier fails; a verifier for a code without challenge fails (downgrade)', async (t) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const redirectUri = 'http://127.0.0.1:4000/callback';
    const code = async (extra: Record<string, string>) => new URL((await authorize({ redirect_uri: redirectUri, ...extra })).headers.get('location')!).searchParams.get('code')!;
    const withChallenge = { code_challenge: challenge, code_challenge_method: 'S256' };
    const wrong = await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code: await code(withChallenge), redirect_uri: redirectUri, code_verifier: oauth.generateRandomCodeVerifier() });
    t.equal(wrong.body.error, 'invalid_grant');
    const missing = await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code: await code(withChallenge), redirect_uri: redirectUri });
    t.equal(missing.body.error, 'invalid_grant');
    const downgrade = await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code: await code({}), redirect_uri: redirectUri, code_verifier: verifier });
    t.equal(downgrade.body.error, 'invalid_grant');
    const plain = await authorize({ redirect_uri: redirectUri, code_challenge: verifier, code_challenge_method: 'plain' });
    t.equal(plain.status, 400);
    t.equal(plain.body.error, 'invalid_request', 'only S256');
  });

  await t.test('a replayed code fails and revokes what the code issued', async (t) => {
    const redirectUri = 'http://localhost:8765/callback';
    const location = (await authorize({ redirect_uri: redirectUri })).headers.get('location')!;
    const tokens = await cli.exchange(location, redirectUri, oauth.nopkce);
    const code = new URL(location).searchParams.get('code')!;
    const replay = await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code, redirect_uri: redirectUri });
    t.equal(replay.status, 400);
    t.equal(replay.body.error, 'invalid_grant');
    t.equal((await s.json('/users/me', { token: tokens.access_token })).status, 401, 'the access token from the code is revoked');
    t.equal((await token({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: tokens.refresh_token! })).body.error, 'invalid_grant');
  });

  await t.test('redirect URIs: exact match, existing query kept, never redirect to an unregistered one', async (t) => {
    await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'partner', grants: ['authorization_code'], redirectUris: ['https://partner.example/cb?tenant=a%20b&x=1'] });
    const ok = await authorize({ client_id: 'partner', redirect_uri: 'https://partner.example/cb?tenant=a%20b&x=1', state: 's 1' });
    t.equal(ok.status, 200);
    t.match(ok.headers.get('location'), /^https:\/\/partner\.example\/cb\?tenant=a%20b&x=1&code=[A-Za-z0-9_-]+&state=s%201$/);
    const defaulted = await authorize({ client_id: 'partner' });
    t.equal(defaulted.status, 200, 'the only registered URI is the default');
    for (const bad of ['https://partner.example/cb', 'https://partner.example/cb?tenant=a%20b&x=1&y=2', 'https://evil.example/cb?tenant=a%20b&x=1', 'https://partner.example/cb/?tenant=a%20b&x=1']) {
      const response = await authorize({ client_id: 'partner', redirect_uri: bad });
      t.equal(response.status, 400, bad);
      t.equal(response.headers.get('location'), null, 'no redirect');
    }
    for (const bad of ['http://127.0.0.1:5000/other', 'https://127.0.0.1:5000/callback', 'http://10.0.0.1:5000/callback']) {
      t.equal((await authorize({ redirect_uri: bad })).status, 400, `loopback rule does not stretch to ${bad}`);
    }
    const location = (await authorize({ redirect_uri: 'http://127.0.0.1:9999/callback' })).headers.get('location')!;
    const mismatch = await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code: new URL(location).searchParams.get('code')!, redirect_uri: 'http://127.0.0.1:9998/callback' });
    t.equal(mismatch.body.error, 'invalid_grant', 'the token request must repeat the same redirect_uri');
  });

  await t.test('authorize needs a logged-in user and a real client', async (t) => {
    const anonymous = await s.json('/oauth2/authorize/?response_type=code&client_id=fieldops-cli&redirect_uri=http://127.0.0.1:1/callback');
    t.equal(anonymous.status, 401);
    t.equal((await authorize({ client_id: 'nope', redirect_uri: 'http://127.0.0.1:1/callback' })).body.error, 'invalid_client');
    t.equal((await authorize({ response_type: 'token', redirect_uri: 'http://127.0.0.1:1/callback' })).body.error, 'unsupported_response_type');
  });

  await t.test('codes expire after 60 seconds', async (t) => {
    const redirectUri = 'http://127.0.0.1:7000/callback';
    const location = (await authorize({ redirect_uri: redirectUri })).headers.get('location')!;
    clock.advance(61_000);
    const late = await token({ grant_type: 'authorization_code', client_id: 'fieldops-cli', code: new URL(location).searchParams.get('code')!, redirect_uri: redirectUri });
    t.equal(late.body.error, 'invalid_grant');
  });

  await t.test('access tokens expire after expires_in; refresh still works', async (t) => {
    const tokens = await cli.password('admin', ADMIN_PASSWORD);
    clock.advance(3600_000 + 1);
    t.equal((await s.json('/users/me', { token: tokens.access_token })).status, 401);
    const renewed = await cli.refresh(tokens.refresh_token!);
    t.equal((await s.json('/users/me', { token: renewed.access_token })).status, 200);
    clock.advance(31 * 24 * 3600_000);
    t.equal((await token({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: renewed.refresh_token! })).body.error, 'invalid_grant', 'refresh tokens expire after 30 days');
  });

  await t.test('revocation (RFC 7009): refresh takes its access tokens; unknown tokens are 200; other clients refused', async (t) => {
    const tokens = await cli.password('admin', ADMIN_PASSWORD);
    await cli.revoke(tokens.refresh_token!);
    t.equal((await s.json('/users/me', { token: tokens.access_token })).status, 401);
    t.equal((await token({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: tokens.refresh_token! })).body.error, 'invalid_grant');
    const unknown = await s.json('/oauth2/revoke_token/', { method: 'POST', body: new URLSearchParams({ token: 'never-issued', client_id: 'fieldops-cli' }) });
    t.equal(unknown.status, 200);
    t.equal((await s.json('/oauth2/revoke_token', { method: 'POST', body: new URLSearchParams({ client_id: 'fieldops-cli' }) })).body.error, 'invalid_request');
    const fresh = await cli.password('admin', ADMIN_PASSWORD);
    const foreign = await s.json('/oauth2/revoke_token/', { method: 'POST', body: new URLSearchParams({ token: fresh.access_token, client_id: 'partner' }) });
    t.equal(foreign.status, 400);
    t.equal((await s.json('/users/me', { token: fresh.access_token })).status, 200, 'not revoked by another client');
  });

  await t.test('failed passwords are throttled per username (429 + Retry-After), then released', async (t) => {
    await s.server.runtime.admin.createUser({ tenant: 'default', username: 'target', password: 'Marula-Tree-Passphrase-1' });
    for (let i = 0; i < 3; i++) {
      t.equal((await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'target', password: `wrong-${i}-guess` })).status, 400);
    }
    const blocked = await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'target', password: 'Marula-Tree-Passphrase-1' });
    t.equal(blocked.status, 429, 'even the right password waits');
    t.equal(blocked.body.error, 'temporarily_unavailable');
    t.ok(Number(blocked.headers.get('retry-after')) > 0 && Number(blocked.headers.get('retry-after')) <= 900);
    t.equal((await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: ADMIN_PASSWORD })).status, 200, 'other usernames are not blocked');
    clock.advance(901_000);
    t.equal((await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'target', password: 'Marula-Tree-Passphrase-1' })).status, 200, 'released after the window');
  });

  await t.test('failed passwords are throttled per address across usernames', async (t) => {
    clock.advance(901_000);
    for (let i = 0; i < 6; i++) await token({ grant_type: 'password', client_id: 'fieldops-cli', username: `spray${i}`, password: 'Spray-Guess-123' });
    const blocked = await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: ADMIN_PASSWORD });
    t.equal(blocked.status, 429);
    clock.advance(901_000);
  });
});
