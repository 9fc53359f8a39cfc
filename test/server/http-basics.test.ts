import t from 'tap';
import { ADMIN_PASSWORD, dialect, startTestServer } from '../helpers/server.js';

t.test(`HTTP conventions (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;

  await t.test('request ids: a sane inbound id is echoed, anything else replaced', async (t) => {
    const echoed = await s.request('/healthz', { headers: { 'X-Request-Id': 'abc-123.def:9' } });
    t.equal(echoed.headers.get('x-request-id'), 'abc-123.def:9');
    const replaced = await s.request('/healthz', { headers: { 'X-Request-Id': 'bad id with spaces <script>' } });
    t.match(replaced.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
    const generated = await s.request('/healthz');
    t.match(generated.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
    t.match(s.logs(), /"requestId":"abc-123.def:9"/, 'logs carry the request id');
  });

  await t.test('health and readiness', async (t) => {
    t.same((await s.json('/healthz')).body, { status: 'ok' });
    t.same((await s.json('/readyz/')).body, { status: 'ready' });
  });

  await t.test('OAuth metadata (RFC 8414) names our endpoints', async (t) => {
    const { body } = await s.json('/.well-known/oauth-authorization-server');
    t.equal(body.issuer, s.url);
    t.equal(body.token_endpoint, `${s.url}/oauth2/token/`);
    t.same(body.code_challenge_methods_supported, ['S256']);
  });

  await t.test('unknown paths and methods get the contract error body', async (t) => {
    const missing = await s.json('/no/such/thing');
    t.equal(missing.status, 404);
    t.same(missing.body, { status: { code: 404, message: 'Not Found', detail: 'No such resource.' } });
    const method = await s.json('/healthz', { method: 'DELETE' });
    t.equal(method.status, 405);
    t.equal(method.body.status.code, 405);
  });

  await t.test('application principals: client_id (+ secret for confidential clients)', async (t) => {
    const { admin } = s.server.runtime;
    await admin.createClient({ tenant: 'default', clientId: 'sensor-gateway', secret: 'gateway-secret-0123456789', permissions: ['view_user'] });
    await admin.createClient({ tenant: 'default', clientId: 'public-kiosk', permissions: [] });
    t.equal((await s.json('/users/?client_id=sensor-gateway&client_secret=gateway-secret-0123456789')).status, 200);
    const basic = 'Basic ' + Buffer.from('sensor-gateway:gateway-secret-0123456789').toString('base64');
    t.equal((await s.json('/users/?client_id=sensor-gateway', { headers: { Authorization: basic } })).status, 200);
    t.equal((await s.json('/users/?client_id=sensor-gateway')).status, 401, 'a confidential client needs its secret');
    t.equal((await s.json('/users/?client_id=sensor-gateway&client_secret=wrong-secret-000000')).status, 401);
    t.equal((await s.json('/users/?client_id=public-kiosk')).status, 403, 'authenticated, without the permission');
    t.equal((await s.json('/users/me?client_id=public-kiosk')).status, 404, 'an application has no user record');
    t.equal((await s.json('/users/?client_id=fieldops-cli')).status, 401, 'a service-wide client is never an application principal');
    t.equal((await s.json('/users/?client_id=unknown')).status, 401);
  });

  await t.test('secrets never reach the logs', async (t) => {
    const tokens = await s.login();
    await s.json('/users/me', { token: tokens.access_token });
    await s.json(`/users/?client_id=sensor-gateway&client_secret=gateway-secret-0123456789`);
    const logs = s.logs();
    for (const secret of [tokens.access_token, tokens.refresh_token, ADMIN_PASSWORD, 'gateway-secret-0123456789']) {
      t.notOk(logs.includes(secret), 'a secret is absent from the logs');
    }
    t.match(logs, /"route":"users.me"/, 'requests are logged');
  });

  await t.test('tokens and secrets are stored hashed', async (t) => {
    const tokens = await s.login();
    const { knex } = s.server.runtime.database;
    const dump = JSON.stringify([
      await knex('oauth_access_tokens').select(),
      await knex('oauth_refresh_tokens').select(),
      await knex('oauth_clients').select(),
      await knex('users').select(),
    ]);
    for (const secret of [tokens.access_token, tokens.refresh_token, ADMIN_PASSWORD, 'gateway-secret-0123456789']) t.notOk(dump.includes(secret));
    t.match(dump, /scrypt\$/, 'passwords and client secrets use scrypt');
  });
});
