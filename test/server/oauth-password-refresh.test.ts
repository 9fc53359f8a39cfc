import t from 'tap';
import { ADMIN_PASSWORD, dialect, startTestServer } from '../helpers/server.js';
import { oauth, oauthClient } from '../helpers/oauth.js';

t.test(`OAuth password and refresh grants (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const client = oauthClient(s.url);
  const token = (form: Record<string, string>, init: RequestInit = {}) =>
    s.json('/oauth2/token/', { method: 'POST', body: new URLSearchParams(form), ...init });

  await t.test('password grant issues a bearer pair that works', async (t) => {
    const tokens = await client.password('admin', ADMIN_PASSWORD);
    t.equal(tokens.token_type, 'bearer', 'oauth4webapi lower-cases token_type');
    t.equal(tokens.expires_in, 3600);
    t.equal(tokens.scope, 'read write');
    t.ok(Buffer.from(tokens.access_token, 'base64url').length >= 32, 'at least 256 random bits');
    t.ok(tokens.refresh_token);
    const me = await s.json('/users/me', { headers: { Authorization: `bearer ${tokens.access_token}` } });
    t.equal(me.status, 200, 'the scheme is case-insensitive');
  });

  await t.test('token responses: no-store, RFC 6749 error bodies, both endpoint spellings and body encodings', async (t) => {
    const ok = await s.request('/oauth2/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: ADMIN_PASSWORD }) });
    t.equal(ok.status, 200, 'without trailing slash');
    t.equal(ok.headers.get('cache-control'), 'no-store');
    const form = new FormData();
    for (const [k, v] of Object.entries({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: ADMIN_PASSWORD })) form.append(k, v);
    const multipart = await s.json('/oauth2/token/', { method: 'POST', body: form });
    t.equal(multipart.status, 200, 'multipart/form-data');
    const wrong = await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: 'not-the-password' });
    t.equal(wrong.status, 400);
    t.same(wrong.body, { error: 'invalid_grant', error_description: 'Invalid credentials given.' });
    t.equal(wrong.headers.get('cache-control'), 'no-store');
    const unknownUser = await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'nobody', password: 'whatever-it-is' });
    t.same(unknownUser.body, wrong.body, 'unknown users look exactly like wrong passwords');
    t.equal((await token({ grant_type: 'password', client_id: 'fieldops-cli', username: 'admin' })).body.error, 'invalid_request');
    t.equal((await token({ grant_type: 'client_credentials', client_id: 'fieldops-cli' })).body.error, 'unsupported_grant_type');
    t.equal((await token({ client_id: 'fieldops-cli' })).body.error, 'invalid_request');
    const unknownClient = await token({ grant_type: 'password', client_id: 'who', username: 'admin', password: ADMIN_PASSWORD });
    t.equal(unknownClient.status, 401);
    t.equal(unknownClient.body.error, 'invalid_client');
    const repeated = await s.json('/oauth2/token/', { method: 'POST', body: 'grant_type=password&grant_type=password&client_id=fieldops-cli', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    t.equal(repeated.body.error, 'invalid_request', 'a repeated parameter is refused');
    const json = await s.json('/oauth2/token/', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    t.equal(json.status, 400);
    t.equal(json.body.error, 'invalid_request');
  });

  await t.test('refresh rotates; reuse of a rotated token revokes the whole family', async (t) => {
    const first = await client.password('admin', ADMIN_PASSWORD);
    const second = await client.refresh(first.refresh_token!);
    t.not(second.refresh_token, first.refresh_token, 'a new refresh token');
    t.equal((await s.json('/users/me', { token: second.access_token })).status, 200);
    const replay = await token({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: first.refresh_token! });
    t.equal(replay.status, 400);
    t.equal(replay.body.error, 'invalid_grant');
    t.equal((await s.json('/users/me', { token: second.access_token })).status, 401, 'access tokens of the family are revoked');
    t.equal((await s.json('/users/me', { token: first.access_token })).status, 401);
    const afterReuse = await token({ grant_type: 'refresh_token', client_id: 'fieldops-cli', refresh_token: second.refresh_token! });
    t.equal(afterReuse.body.error, 'invalid_grant', 'the newest refresh token is revoked too');
    const other = await client.password('admin', ADMIN_PASSWORD);
    t.equal((await s.json('/users/me', { token: other.access_token })).status, 200, 'other sessions are untouched');
  });

  await t.test('refresh tokens are bound to their client', async (t) => {
    await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'web-app', grants: ['password', 'refresh_token'] });
    const tokens = await client.password('admin', ADMIN_PASSWORD);
    const stolen = await token({ grant_type: 'refresh_token', client_id: 'web-app', refresh_token: tokens.refresh_token! });
    t.equal(stolen.body.error, 'invalid_grant');
    t.equal((await client.refresh(tokens.refresh_token!)).token_type, 'bearer', 'still usable by its own client');
  });

  await t.test('clients can only use the grants they were given', async (t) => {
    await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'password-only', grants: ['password'] });
    const tokens = await token({ grant_type: 'password', client_id: 'password-only', username: 'admin', password: ADMIN_PASSWORD });
    t.equal(tokens.status, 200);
    const refresh = await token({ grant_type: 'refresh_token', client_id: 'password-only', refresh_token: tokens.body.refresh_token });
    t.equal(refresh.body.error, 'unauthorized_client');
  });

  await t.test('confidential clients authenticate by Basic or client_secret', async (t) => {
    const secret = 'a-long-client-secret-0123456789';
    await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'integration', secret, grants: ['password', 'refresh_token'] });
    const confidential = oauthClient(s.url, 'integration', secret);
    const viaBasic = await confidential.password('admin', ADMIN_PASSWORD);
    t.ok(viaBasic.access_token);
    t.ok((await confidential.refresh(viaBasic.refresh_token!)).access_token);
    const viaPost = await token({ grant_type: 'password', client_id: 'integration', client_secret: secret, username: 'admin', password: ADMIN_PASSWORD });
    t.equal(viaPost.status, 200);
    for (const bad of ['', 'wrong-secret']) {
      const denied = await token({ grant_type: 'password', client_id: 'integration', client_secret: bad, username: 'admin', password: ADMIN_PASSWORD });
      t.equal(denied.status, 401, `secret "${bad}"`);
      t.equal(denied.body.error, 'invalid_client');
    }
    const mismatch = await token(
      { grant_type: 'password', client_id: 'fieldops-cli', username: 'admin', password: ADMIN_PASSWORD },
      { headers: { Authorization: 'Basic ' + Buffer.from(`integration:${secret}`).toString('base64') } },
    );
    t.equal(mismatch.body.error, 'invalid_request', 'client_id must agree with Basic');
  });

  await t.test('expired and revoked access tokens are 401 with WWW-Authenticate', async (t) => {
    const tokens = await client.password('admin', ADMIN_PASSWORD);
    await client.revoke(tokens.access_token);
    const revoked = await s.request('/users/me', { token: tokens.access_token });
    t.equal(revoked.status, 401);
    t.match(revoked.headers.get('www-authenticate'), /Bearer.*error="invalid_token"/);
    const garbage = await s.json('/users/me', { token: 'x'.repeat(43) });
    t.equal(garbage.status, 401);
    t.same(garbage.body.status, { code: 401, message: 'Unauthorized', detail: 'Invalid or expired token.' });
    t.equal((await s.json('/users/me', { headers: { Authorization: 'Bearer' } })).status, 401);
    t.equal((await s.json('/users/me', { headers: { Authorization: 'Token abc' } })).status, 401);
  });

  t.ok(oauth.nopkce, 'oauth4webapi loaded');
});
