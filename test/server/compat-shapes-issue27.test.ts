import t from 'tap';
import { send } from '../helpers/catalog.js';
import { ADMIN_PASSWORD, dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { P, pullAll, startFeedServer } from './sync/feed-support.js';

/** Issue 27: shapes and statuses of event types, categories, choices, the patrol catalog and patrols for the original's clients. */
const V2 = '/api/v2.0/activity/eventtypes';
const V1 = '/api/v1.0/activity/events/eventtypes';

async function earthRangerToken(s: TestServer): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'das_web_client', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'das_web_client', username: 'admin', password: ADMIN_PASSWORD }) });
  return String(((await response.json()) as { access_token: string }).access_token);
}

/** The web app's "new patrol" body (its createNewPatrolForPatrolType), as it sends it. */
function webAppNewPatrol(start: string) {
  return {
    icon_id: 'foot', is_collection: false, priority: 0, created_at: start,
    patrol_segments: [{ patrol_type: 'foot', priority: 0, events: [], scheduled_start: null, leader: null, start_location: null, time_range: { start_time: start, end_time: null }, end_location: null }],
    files: [], notes: [], title: null,
  };
}

t.test(`patrols as the original's clients read and write them (${dialect})`, async (t) => {
  const fixture = await startFeedServer(t);
  if (!fixture) return;
  const { s, token } = fixture;
  const er = await earthRangerToken(s);

  await t.test('the web app\'s new patrol (icon_id, is_collection, segment priority) is accepted in both profiles', async (t) => {
    const start = new Date().toISOString();
    const created = await s.json(P, send('POST', webAppNewPatrol(start), er));
    t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
    const fieldops = await s.json(P, send('POST', webAppNewPatrol(start), token));
    t.equal(fieldops.status, 201, JSON.stringify(fieldops.body).slice(0, 300));
    t.notOk('icon_id' in fieldops.body && fieldops.body.icon_id === 'foot' && 'is_collection' in fieldops.body, 'ignored: not stored as fields of the patrol');
    const unknown = await s.json(P, send('POST', { ...webAppNewPatrol(start), colour: 'red' }, er));
    t.equal(unknown.status, 400, 'an unknown field is still refused');
  });

  await t.test('opening a patrol: segments carry updates; the users in updates are accounts', async (t) => {
    const created = (await s.json(P, send('POST', { title: 'Open me', patrol_segments: [{ patrol_type: 'foot' }] }, er))).body.data;
    const opened = (await s.json(`${P}/${created.id}`, { token: er })).body.data;
    t.same(opened.patrol_segments[0].updates, [], 'a segment has its updates list');
    t.notOk('revision' in opened.patrol_segments[0]);
    const [added] = opened.updates;
    t.match(added.user, { username: 'admin', first_name: String, last_name: String, content_type: 'accounts.user' });
    t.ok(added.user.id, 'the account id');
    const listed = (await s.json(P, { token: er })).body.data.results;
    t.ok(listed.every((patrol: any) => patrol.patrol_segments.every((segment: any) => Array.isArray(segment.updates))), 'listed patrols too');
    const segment = (await s.json(`${P}/segments/${opened.patrol_segments[0].id}`, { token: er })).body.data;
    t.same(segment.updates, [], 'a segment read alone');
    const fieldops = (await s.json(`${P}/${created.id}`, { token })).body;
    t.notOk('updates' in fieldops.patrol_segments[0], 'the fieldops shape is unchanged');
    t.match(fieldops.updates[0].user, { username: 'admin', content_type: 'accounts.user' });
  });

  await t.test('DELETE activity/patrols/<id>: gone, a tombstone on the feed; 404 after; both profiles', async (t) => {
    const first = (await s.json(P, send('POST', { title: 'Delete me', patrol_segments: [{ patrol_type: 'foot' }], notes: [{ text: 'a note' }] }, token))).body;
    const before = await pullAll(s, token, ['pa:open']);
    t.ok(before.mirror.size > 0);
    const removed = await s.request(`${P}/${first.id}/`, send('DELETE', undefined, token));
    t.equal(removed.status, 204, 'fieldops: 204');
    t.equal((await s.json(`${P}/${first.id}`, { token })).status, 404);
    t.equal((await s.request(`${P}/${first.id}`, send('DELETE', undefined, token))).status, 404, 'a second delete: 404');
    const after = await pullAll(s, token, ['pa:open'], { cursor: before.cursor });
    t.ok(after.received.some((change) => change.kind === 'patrol' && change.id === first.id && change.op === 'delete'), 'a delete on the sync feed');
    const second = (await s.json(P, send('POST', { title: 'Delete me too' }, er))).body.data;
    const erRemoved = await s.json(`${P}/${second.id}`, send('DELETE', undefined, er));
    t.same([erRemoved.status, erRemoved.body], [200, { data: null, status: { code: 200, message: 'OK' } }], 'earthranger: 200 data null');
    t.equal((await s.json(`${P}/not-a-uuid`, send('DELETE', undefined, token))).status, 404);
    await s.server.runtime.admin.createUser({ tenant: 'default', username: 'planner', password: 'Quiet-Heron-Passphrase-1', permissions: ['view_patrol', 'add_patrol', 'change_patrol'] });
    const planner = (await s.login('planner', 'Quiet-Heron-Passphrase-1')).access_token;
    const kept = (await s.json(P, send('POST', { title: 'Kept' }, planner))).body;
    t.equal((await s.json(`${P}/${kept.id}`, send('DELETE', undefined, planner))).status, 403, 'delete_patrol is needed');
    t.equal((await s.json(`${P}/${kept.id}`, { token: planner })).status, 200, 'and nothing went');
  });
});

t.test(`event types, categories and choices as the original's clients read them (${dialect})`, async (t) => {
  const fixture = await startFeedServer(t);
  if (!fixture) return;
  const { s, token } = fixture;
  const er = await earthRangerToken(s);

  await t.test('v2: url, resolve_time, auto_resolve on items; POST answers Location; the original\'s writable fields accepted', async (t) => {
    const created = await s.json(V2, send('POST', { value: 'snare', display: 'Snare', resolve_time: 3600, auto_resolve: true, readonly: false }, er));
    t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
    t.same(created.body.data, { resource_url: '/api/v2.0/activity/eventtypes/snare' });
    t.equal(created.headers.get('location'), `${s.url}${V2}/snare`);
    const fieldops = await s.json(V2, send('POST', { value: 'fence', display: 'Fence', auto_resolve: false }, token));
    t.equal(fieldops.status, 201);
    t.equal(fieldops.headers.get('location'), `${s.url}${V2}/fence`, 'Location in both profiles');
    const list = (await s.json(V2, { token: er })).body.data;
    const snare = list.find((item: any) => item.value === 'snare');
    t.match(snare, { url: `${s.url}${V2}/snare`, resolve_time: null, auto_resolve: false });
    const detail = (await s.json(`${V2}/snare`, { token: er })).body.data;
    t.equal(detail.url, `${s.url}${V2}/snare`);
    t.equal((await s.json(`${V2}/snare`, send('PATCH', { ...detail, display: 'Snare line' }, er))).status, 200, 'a served item PATCHed back');
    const plain = (await s.json(V2, { token })).body;
    t.notOk('url' in plain[0], 'the fieldops shape is unchanged');
  });

  await t.test('an unknown query boolean: false in the earthranger profile, 400 in fieldops', async (t) => {
    await s.json(`${V2}/fence`, send('PATCH', { is_active: false }, token));
    const er1 = await s.json(`${V2}?include_inactive=maybe`, { token: er });
    t.equal(er1.status, 200);
    t.notOk(er1.body.data.some((item: any) => item.value === 'fence'), 'maybe is false: the inactive type is left out');
    t.equal((await s.json('/api/v1.0/activity/events/categories?include_inactive=maybe', { token: er })).status, 200);
    const fieldops = await s.json(`${V2}?include_inactive=maybe`, { token });
    t.equal(fieldops.status, 400);
    t.match(fieldops.body.include_inactive, [{ code: 'invalid_boolean' }]);
  });

  await t.test('400 field errors: lists of strings in the earthranger profile; issues in fieldops', async (t) => {
    const bad = await s.json(V2, send('POST', { value: 'x y', display: 'X' }, er));
    t.equal(bad.status, 400);
    t.ok(Array.isArray(bad.body.value) && bad.body.value.every((entry: unknown) => typeof entry === 'string'), JSON.stringify(bad.body));
    t.equal(bad.body.status.code, 400);
    // How the web app reads a refused save: status.detail as the field messages.
    const parsed = JSON.parse(String(bad.body.status.detail).replace(/'/g, '"'));
    t.same(Object.keys(parsed), ['value']);
    const fieldops = await s.json(V2, send('POST', { value: 'x y', display: 'X' }, token));
    t.match(fieldops.body.value, [{ code: String, message: String, hints: Array }]);
    const missing = await s.json(`${V2}/nope`, { token: er });
    t.same(missing.body, (await s.json(`${V2}/nope`, { token })).body, 'other errors: the same body');
    const openapi = (await s.json('/api/openapi-earthranger.json')).body;
    t.same(openapi.paths[V2].post.responses['400'].content['application/json'].schema.additionalProperties, { type: 'array', items: { type: 'string' } });
  });

  await t.test('v1: the original\'s fields accepted; categories POST and PATCH on the v1 paths', async (t) => {
    const v1 = await s.json(V1, send('POST', { value: 'legacy', display: 'Legacy', category: 'wildlife', icon: 'legacy', ordernum: 3, geometry_type: 'Point', is_collection: false, schema: { schema: { type: 'object', properties: {} }, definition: [] } }, er));
    t.equal(v1.status, 201, JSON.stringify(v1.body).slice(0, 300));
    const created = await s.json('/api/v1.0/activity/events/categories', send('POST', { value: 'rangers', display: 'Rangers', ordernum: 5 }, er));
    t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
    t.match(created.body.data, { value: 'rangers', display: 'Rangers', flag: 'user', is_active: true });
    const patched = await s.json(`/api/v1.0/activity/events/categories/${created.body.data.id}`, send('PATCH', { ...created.body.data, display: 'Ranger reports' }, er));
    t.equal(patched.status, 200, JSON.stringify(patched.body).slice(0, 300));
    t.equal(patched.body.data.display, 'Ranger reports');
    const listed = (await s.json('/api/v1.0/activity/events/categories', { token: er })).body.data;
    t.ok(listed.some((category: any) => category.value === 'rangers' && category.display === 'Ranger reports'));
    t.equal((await s.json('/api/v1.0/activity/events/categories/nope', send('PATCH', { display: 'x' }, er))).status, 404);
  });

  await t.test('choices.json says what it lists', async (t) => {
    await s.json('/api/v2.0/choices', send('POST', { field: 'colour', value: 'red', display: 'Red' }, token));
    const doc = await s.json('/api/v2.0/schemas/choices.json?field=colour', { token: er });
    t.equal(doc.status, 200);
    t.equal(doc.body.description, 'Choices of colour');
    t.match(doc.body.oneOf, [{ const: 'red', title: 'Red', description: 'colour' }]);
  });
});

t.test(`an empty patrol type catalog sends no Last-Modified (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const types = '/api/v1.0/activity/patrols/types';
  const empty = await s.request(types, { token });
  t.equal(empty.status, 200);
  t.ok(empty.headers.get('etag'));
  t.notOk(empty.headers.get('last-modified'), 'never written: no Last-Modified (not 1970)');
  t.notOk((await s.request('/api/v2.0/choices', { token })).headers.get('last-modified'), 'choices never written: none either');
  t.equal((await s.json(types, send('POST', { value: 'foot', display: 'Foot' }, token))).status, 201);
  const written = await s.request(types, { token });
  t.ok(written.headers.get('last-modified'), 'a written catalog has one');
});
