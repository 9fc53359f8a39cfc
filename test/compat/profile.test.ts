import t from 'tap';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const V2 = '/api/v2.0/activity/eventtypes';
const PASSWORD = 'Baobab-Shade-77';

/** Password-grant token for a user through a given client. */
async function tokenVia(s: TestServer, clientId: string, username = 'ranger'): Promise<string> {
  const response = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: clientId, username, password: PASSWORD }) });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`login via ${clientId}: ${response.status} ${JSON.stringify(body)}`);
  t.notOk('data' in body, 'OAuth answers are RFC 6749 in every profile');
  return String(body.access_token);
}

t.test(`response profiles per OAuth client (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  await admin.createUser({ tenant: 'default', username: 'ranger', password: PASSWORD, superuser: true });
  await admin.createClient({ tenant: 'default', clientId: 'plain', grants: ['password'] });
  await admin.createClient({ tenant: 'default', clientId: 'das_web_client', grants: ['password', 'refresh_token'], profile: 'earthranger' });
  const plain = await tokenVia(s, 'plain');
  const er = await tokenVia(s, 'das_web_client');

  await t.test('fieldops shapes by default; earthranger wraps in {data, status}', async (t) => {
    const created = await s.json(V2, send('POST', { value: 'sighting', display: 'Sighting' }, plain));
    t.equal(created.status, 201);
    t.equal(created.body.value, 'sighting');
    const fieldops = await s.json(V2, { token: plain });
    t.ok(Array.isArray(fieldops.body), 'fieldops list is the bare array');
    const wrapped = await s.json(V2, { token: er });
    t.equal(wrapped.status, 200);
    t.same(wrapped.body.status, { code: 200, message: 'OK' });
    // Issue 27: the original's list items also carry url, resolve_time, auto_resolve and has_events_assigned.
    const original = (items: any[]) => items.map(({ url: _url, resolve_time: _resolveTime, auto_resolve: _autoResolve, has_events_assigned: _used, ...rest }) => rest);
    t.same(original(wrapped.body.data), fieldops.body, 'the same payload inside the envelope, plus the original\'s fields');
    t.match(wrapped.body.data[0], { url: `${s.url}${V2}/sighting`, resolve_time: null, auto_resolve: false });
    // has_events_assigned is part of the earthranger content, so its validator covers it: another tag.
    t.not(wrapped.headers.get('etag'), fieldops.headers.get('etag'), 'each representation its own validator');
    // The second read is served from the serialised-body cache: wrapped all the same.
    const cached = await s.json(V2, { token: er });
    t.same(cached.body, wrapped.body, 'a cached serialised body is wrapped too');
    t.equal((await s.request(V2, { token: er, headers: { 'If-None-Match': wrapped.headers.get('etag')! } })).status, 304);
  });

  await t.test('earthranger writes: 201 resource_url, PATCH and DELETE 200 data null', async (t) => {
    const created = await s.json(V2, send('POST', { value: 'poaching', display: 'Poaching' }, er));
    t.equal(created.status, 201);
    t.same(created.body.data, { resource_url: '/api/v2.0/activity/eventtypes/poaching' });
    const patched = await s.json(`${V2}/poaching`, send('PATCH', { display: 'Poaching activity' }, er));
    t.same([patched.status, patched.body], [200, { data: null, status: { code: 200, message: 'OK' } }]);
    t.equal((await s.json(`${V2}/poaching`, { token: plain })).body.display, 'Poaching activity');
    const deleted = await s.json(`${V2}/poaching`, send('DELETE', undefined, er));
    t.same([deleted.status, deleted.body], [200, { data: null, status: { code: 200, message: 'OK' } }]);
    t.equal((await s.request(`${V2}/sighting`, send('DELETE', undefined, plain))).status, 204, 'fieldops keeps 204');
  });

  await t.test('errors are the same body in both profiles; schema documents unwrapped', async (t) => {
    const missing = await s.json(`${V2}/nope`, { token: er });
    t.equal(missing.status, 404);
    t.same(missing.body, (await s.json(`${V2}/nope`, { token: plain })).body);
    t.match(missing.body.status, { code: 404, message: 'Not Found' });
    const bad = await s.json(V2, send('POST', { value: 'x y', display: 'X' }, er));
    t.equal(bad.status, 400);
    t.ok(Array.isArray(bad.body.value), 'field keys kept');
    await s.json(V2, send('POST', { value: 'fence', display: 'Fence' }, plain));
    const schemas = await s.json(`${V2}/schemas`, { token: er });
    t.equal(schemas.status, 200);
    t.notOk('data' in schemas.body, 'v2 schemas list unwrapped as the original');
    t.notOk('data' in (await s.json(`${V2}/fence/schema`, { token: er })).body, 'one schema unwrapped');
    const health = await s.json('/healthz', { token: er });
    t.notOk('data' in health.body, 'health is ours');
  });

  await t.test('changing a client profile applies to tokens already issued', async (t) => {
    await admin.setClientProfile('plain', 'earthranger');
    t.same((await s.json(V2, { token: plain })).body.status, { code: 200, message: 'OK' });
    await admin.setClientProfile('plain', 'fieldops');
    t.ok(Array.isArray((await s.json(V2, { token: plain })).body));
    await t.rejects(admin.setClientProfile('plain', 'django'), /Unknown response profile/);
    await t.rejects(admin.setClientProfile('ghost', 'fieldops'), /No client/);
  });

  await t.test('OpenAPI describes both profiles', async (t) => {
    const fieldops = await s.json('/api/openapi.json');
    const earthranger = await s.json('/api/openapi-earthranger.json');
    t.equal(earthranger.status, 200);
    const list = (doc: any) => doc.paths['/api/v2.0/activity/eventtypes'].get.responses['200'].content['application/json'].schema;
    t.notOk(list(fieldops.body).required?.includes('data'));
    t.same(list(earthranger.body).required, ['data', 'status']);
    const del = earthranger.body.paths['/api/v2.0/activity/eventtypes/{key}'].delete.responses;
    t.ok(del['200'] && !del['204'], 'a 204 is described as 200 data null');
  });
});

t.test(`FIELDOPS_API_PROFILE sets the default profile (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_API_PROFILE: 'earthranger' } });
  if (!s) return;
  const cli = (await s.login()).access_token;
  t.same((await s.json(V2, { token: cli })).body, [], "the CLI's own client reads the fieldops shapes whatever the default");
  await s.server.runtime.admin.createUser({ tenant: 'default', username: 'ranger', password: PASSWORD, superuser: true });
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'plain', grants: ['password'] });
  const token = await tokenVia(s, 'plain');
  const body = (await s.json(V2, { token })).body;
  t.same(body, { data: [], status: { code: 200, message: 'OK' } }, 'a client naming no profile answers in the default');
  await s.server.runtime.admin.setClientProfile('plain', 'fieldops');
  t.same((await s.json(V2, { token })).body, [], 'a client naming one answers in its own');
});
