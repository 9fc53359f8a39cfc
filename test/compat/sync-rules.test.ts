import t from 'tap';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { fixtureText } from '../helpers/fixtures.js';

/**
 * The mobile app's sync rules (CONTRACT §11): it compares ETags without If-None-Match, so each
 * of the four scopes must carry one on every 200, stable for identical content, varying with
 * the caller and User-Profile where the content does, and moving on the changes that matter.
 */
const ME = '/api/v1.0/user/me';
const V1 = '/api/v1.0/activity/events/eventtypes';
const SCHEMA = '/api/v1.0/activity/events/schema';
const PATROL_TYPES = '/api/v1.0/activity/patrols/types';
const PASSWORD = 'Hornbill-Sky-Pass-1';

async function tag(s: TestServer, path: string, token: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await s.request(path, { token, headers });
  t.equal(response.status, 200, `${path} answers 200`);
  await response.arrayBuffer();
  const etag = response.headers.get('etag');
  t.match(etag, /^"[^"]+"$/, `${path}: a strong ETag`);
  return etag!;
}

t.test(`mobile sync rules: ETags of user/me, v1 event types, events/schema, patrol types (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  await admin.createClient({ tenant: 'default', clientId: 'er_mobile_tracker', grants: ['password', 'refresh_token'], profile: 'earthranger' });
  await admin.createUser({ tenant: 'default', username: 'ranger1', password: PASSWORD, permissions: ['view_eventtype', 'view_patroltype', 'view_event', 'add_event'] });
  await admin.createUser({ tenant: 'default', username: 'ranger2', password: PASSWORD, permissions: ['view_eventtype', 'view_patroltype', 'view_event', 'add_event'] });
  const viewer = await admin.createUser({ tenant: 'default', username: 'viewer1', password: PASSWORD, permissions: ['view_eventtype', 'view_patroltype', 'view_event'] });
  await admin.addProfile('ranger1', 'viewer1');

  // The mobile app posts its token requests as multipart/form-data.
  const mobileLogin = async (username: string) => {
    const form = new FormData();
    for (const [key, value] of Object.entries({ grant_type: 'password', client_id: 'er_mobile_tracker', username, password: PASSWORD })) form.append(key, value);
    const response = await fetch(s.url + '/oauth2/token/', { method: 'POST', body: form });
    t.equal(response.status, 200, 'a multipart token request is accepted');
    return String(((await response.json()) as { access_token: string }).access_token);
  };
  const r1 = await mobileLogin('ranger1');
  const r2 = await mobileLogin('ranger2');
  const v = await mobileLogin('viewer1');
  const adminToken = (await s.login()).access_token;
  await s.json('/api/v2.0/activity/eventcategories', send('POST', { value: 'security', display: 'Security' }, adminToken));
  await s.json('/api/v2.0/choices', send('POST', { field: 'fencerep_urgency', value: 'low', display: 'Low' }, adminToken));
  const created = await s.json(V1, send('POST', { value: 'fence_patrol_rep', display: 'Fence patrol', category: 'security', schema: fixtureText('demo/fence_patrol_rep.v1.txt') }, adminToken));
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.equal((await s.json(PATROL_TYPES, send('POST', { value: 'foot', display: 'Foot' }, adminToken))).status, 201);

  await t.test('stable for identical content', async (t) => {
    for (const path of [ME, V1, `${V1}?include_schema=true`, SCHEMA, PATROL_TYPES]) t.equal(await tag(s, path, r1), await tag(s, path, r1), path);
    const me = await s.json(ME, { token: r1 });
    t.same(me.body.data.permissions.security, ['add', 'view'], 'permissions by event category');
    const types = await s.json(V1, { token: r1 });
    t.match(types.body.data[0], { value: 'fence_patrol_rep', category: { value: 'security', flag: 'user', permissions: ['create', 'read'] }, is_collection: false });
    t.notOk('schema' in types.body.data[0], 'schema only with include_schema');
    t.equal(typeof (await s.json(`${V1}?include_schema=true`, { token: r1 })).body.data[0].schema, 'object');
    t.equal((await s.request(ME, { token: r1, headers: { 'If-None-Match': await tag(s, ME, r1) } })).status, 304, 'and 304 for those that ask');
  });

  await t.test('varying with the caller and User-Profile where the content does', async (t) => {
    t.not(await tag(s, ME, r1), await tag(s, ME, r2), 'user/me: per user');
    t.not(await tag(s, ME, r1), await tag(s, ME, r1, { 'User-Profile': viewer.id }), 'user/me: per User-Profile');
    t.not(await tag(s, V1, r1), await tag(s, V1, v), 'v1 event types: the category actions differ with the rights');
    t.equal(await tag(s, V1, r1), await tag(s, V1, r2), 'v1 event types: same rights, same content, same tag');
    t.not(await tag(s, V1, r1), await tag(s, V1, r1, { 'User-Profile': viewer.id }), 'v1 event types: acting as a profile with other rights');
    t.not(await tag(s, SCHEMA, r1), await tag(s, SCHEMA, r2), 'events/schema: the reporter is the caller');
    t.not(await tag(s, SCHEMA, r1), await tag(s, SCHEMA, r1, { 'User-Profile': viewer.id }), 'events/schema: per User-Profile');
    t.equal(await tag(s, PATROL_TYPES, r1), await tag(s, PATROL_TYPES, v), 'patrol types are the same for all');
  });

  await t.test('moving on the changes that matter', async (t) => {
    const moves = async (path: string, token: string, change: () => Promise<unknown>, what: string) => {
      const before = await tag(s, path, token);
      await change();
      t.not(await tag(s, path, token), before, `${path} moves when ${what}`);
    };
    await moves(ME, r1, () => admin.grant('ranger1', ['view_patrol']), 'a permission is granted');
    await moves(ME, r1, () => s.json('/api/v2.0/activity/eventcategories', send('POST', { value: 'monitoring', display: 'Monitoring' }, adminToken)), 'a category is added');
    await moves(V1, r1, () => s.json(`${V1}/fence_patrol_rep`, send('PATCH', { schema: fixtureText('demo/snare_removal_rep.v1.txt') }, adminToken)), 'a v1 schema changes');
    await moves(V1, r1, () => s.json('/api/v2.0/choices', send('POST', { field: 'fencerep_urgency', value: 'high', display: 'High' }, adminToken)), 'a choice is added');
    await moves(V1, r1, () => s.json('/api/v2.0/activity/eventcategories/security', send('PATCH', { display: 'Security & law' }, adminToken)), 'a category changes');
    await moves(V1, r1, () => s.json('/api/v2.0/activity/eventcategories', send('POST', { value: 'wildlife', display: 'Wildlife' }, adminToken)), 'a category is added');
    await moves(V1, r1, () => s.json(V1, send('POST', { value: 'snare_removal_rep', display: 'Snare removal', category: 'wildlife', schema: fixtureText('demo/snare_removal_rep.v1.txt') }, adminToken)), 'a v1 type is added');
    await moves(V1, r1, () => s.json(`${V1}/snare_removal_rep`, send('PATCH', { is_active: false }, adminToken)), 'a v1 type is deactivated');
    const v1Tag = await tag(s, V1, r1);
    await s.json(`${PATROL_TYPES}/foot`, send('PATCH', { display: 'Foot' }, adminToken));
    t.equal(await tag(s, V1, r1), v1Tag, 'v1 event types do not move with a patrol type');
    t.equal((await s.request(V1, { token: r1, headers: { 'If-None-Match': v1Tag } })).status, 304, 'and revalidate with 304');
    await moves(PATROL_TYPES, r1, () => s.json(`${PATROL_TYPES}/foot`, send('PATCH', { display: 'On foot' }, adminToken)), 'a patrol type changes');
    const schemaTag = await tag(s, SCHEMA, r1);
    await s.json('/api/v2.0/choices', send('POST', { field: 'fencerep_urgency', value: 'medium', display: 'Medium' }, adminToken));
    t.equal(await tag(s, SCHEMA, r1), schemaTag, 'events/schema does not move with catalogs it does not show');
  });
});
