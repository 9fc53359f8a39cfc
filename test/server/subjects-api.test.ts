import t from 'tap';
import { ADMIN_PASSWORD, type TestServer, dialect, startTestServer } from '../helpers/server.js';
import { feed } from './sync/feed-support.js';
import { GPS, observation, post, userToken } from './sensors-support.js';

type Json = Record<string, any>;

const SUBJECTS = '/api/v1.0/subjects';
const one = (id: string) => `/api/v1.0/subject/${id}`;

function send(method: string, body: unknown, token: string): RequestInit & { token: string } {
  return { method, token, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) };
}

async function earthRangerToken(s: TestServer): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_subjects', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_subjects', username: 'admin', password: ADMIN_PASSWORD }) });
  return String(((await response.json()) as Json).access_token);
}

t.test(`the subject API: create, read, patch, delete, list filters and pages, groups (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;

  await t.test('POST subjects: ranger by default, every field the clients read, an icon that is served', async (t) => {
    const created = await s.json(SUBJECTS, send('POST', { name: 'Amani', sex: 'female', country: 'KE', hex: '#FF0000', id: 'ignored', tracks_available: true }, token));
    t.equal(created.status, 201);
    const body = created.body.data;
    t.match(body, { name: 'Amani', subject_type: 'person', subject_subtype: 'ranger', sex: 'female', country: 'KE', hex: '#FF0000', is_active: true, tracks_available: false, last_position: null, revision: 1 });
    t.equal(body.url, `${s.url}/api/v1.0/subject/${body.id}`);
    const icon = await s.request(body.image_url);
    t.same([icon.status, icon.headers.get('content-type')], [200, 'image/svg+xml'], 'image_url is an icon the server serves');
    const wild = (await s.json(SUBJECTS, send('POST', { name: 'Tembo', subject_subtype: 'elephant' }, token))).body.data;
    t.match(wild, { subject_type: 'wildlife', subject_subtype: 'elephant', image_url: '/static/sprite-src/wildlife.svg' });
    t.equal((await s.request(wild.image_url)).status, 200);
    t.equal((await s.json(SUBJECTS, send('POST', { subject_type: 'person' }, token))).status, 400, 'a name is required');
    t.equal((await s.json(SUBJECTS, send('POST', { name: 'x', surprise: 1 }, token))).status, 400, 'unknown fields are refused');
  });

  await t.test('a position makes tracks_available and last_position as the map reads them', async (t) => {
    await post(s, GPS, observation('collar-a', 0, { subject_name: 'Amani' }), token);
    const amani = (await s.json(`${SUBJECTS}?name=aman`, { token })).body.data;
    t.equal(amani.length, 1, 'name filter: a case-insensitive part');
    t.match(amani[0], { tracks_available: true, last_position: { type: 'Feature', properties: { title: 'Amani', subject_subtype: 'ranger', stroke: '#FF0000', image: `${s.url}/static/sprite-src/foot-patrol.svg`, radio_state: 'na' } } });
    t.equal(amani[0].last_position.properties.coordinateProperties.time, amani[0].last_position_date);
  });

  await t.test('list: plain without paging parameters, a page with page_size; bbox; include_inactive; subject_group', async (t) => {
    for (const [i, name] of ['Baraka', 'Chui', 'Duma'].entries()) await post(s, GPS, observation(`collar-${name}`, 1, { subject_name: name, location: { lat: -1 - i, lon: 36 + i }, subject_groups: i === 0 ? ['North'] : [] }), token);
    const plain = await s.json(SUBJECTS, { token });
    t.ok(Array.isArray(plain.body.data), 'a plain list');
    const first = await s.json(`${SUBJECTS}?page_size=2`, { token });
    t.match(first.body.data, { count: plain.body.data.length, previous: null });
    t.equal(first.body.data.results.length, 2);
    const second = await s.json(new URL(first.body.data.next).pathname + new URL(first.body.data.next).search, { token });
    t.equal(second.body.data.results[0].name, plain.body.data[2].name, 'next is the following page');
    const boxed = await s.json(`${SUBJECTS}?bbox=36.5,-2.5,37.5,-1.5`, { token });
    t.same(boxed.body.data.map((x: Json) => x.name), ['Chui'], 'bbox: west,south,east,north on the last position');
    t.equal((await s.json(`${SUBJECTS}?bbox=1,2,3`, { token })).status, 400);
    const duma = plain.body.data.find((x: Json) => x.name === 'Duma');
    t.equal((await s.json(one(duma.id), send('PATCH', { is_active: false }, token))).body.data.is_active, false);
    t.notOk((await s.json(SUBJECTS, { token })).body.data.some((x: Json) => x.name === 'Duma'), 'inactive subjects are left out');
    t.ok((await s.json(`${SUBJECTS}?include_inactive=true`, { token })).body.data.some((x: Json) => x.name === 'Duma'));
    const groups = (await s.json('/api/v1.0/subjectgroups', { token })).body;
    const north = (groups.data ?? groups).find((g: Json) => g.name === 'North');
    t.same((await s.json(`${SUBJECTS}?subject_group=${north.id}`, { token })).body.data.map((x: Json) => x.name), ['Baraka']);

    const chui = plain.body.data.find((x: Json) => x.name === 'Chui');
    const added = await s.json(`/api/v1.0/subjectgroup/${north.id}/subjects/`, send('POST', [{ id: chui.id }], token));
    t.equal(added.status, 200);
    t.same((await s.json(`${SUBJECTS}?subject_group=${north.id}`, { token })).body.data.map((x: Json) => x.name), ['Baraka', 'Chui'], 'a member added');
    t.equal((await s.json(`/api/v1.0/subjectgroup/${north.id}/subjects/`, send('POST', [{ id: '00000000-0000-4000-8000-000000000000' }], token))).status, 400, 'an unknown subject is refused');
    t.equal((await s.request(`/api/v1.0/subjectgroup/${north.id}/subjects/`, send('DELETE', [{ id: chui.id }], token))).status, 204);
    t.same((await s.json(`${SUBJECTS}?subject_group=${north.id}`, { token })).body.data.map((x: Json) => x.name), ['Baraka'], 'a member removed');
  });

  await t.test('PATCH and DELETE, on the sync feed as a put and a delete', async (t) => {
    const created = (await s.json(SUBJECTS, send('POST', { name: 'Ephemeral' }, token))).body.data;
    const patched = await s.json(one(created.id), send('PATCH', { subject_subtype: 'rhino', common_name: 'Black rhino' }, token));
    t.match(patched.body.data, { subject_type: 'wildlife', subject_subtype: 'rhino', common_name: 'Black rhino', revision: 2 });
    let page = (await feed(s, token, { cursor: null, scopes: ['su:*'] })).body;
    const cursor = async () => {
      let all: Json[] = [...page.changes];
      while (page.has_more) {
        page = (await feed(s, token, { cursor: page.cursor, scopes: ['su:*'] })).body;
        all = all.concat(page.changes);
      }
      return all;
    };
    const before = await cursor();
    t.ok(before.some((c) => c.id === created.id && c.op === 'put' && c.record?.common_name === 'Black rhino'), 'the feed has the subject as patched');
    t.equal((await s.request(one(created.id), { method: 'DELETE', token })).status, 204);
    t.equal((await s.json(one(created.id), { token })).status, 404);
    page = (await feed(s, token, { cursor: page.cursor, scopes: ['su:*'] })).body;
    const after = await cursor();
    t.ok(after.some((c) => c.id === created.id && c.op === 'delete'), 'the feed has its delete');
    t.equal((await s.request(one(created.id), { method: 'DELETE', token })).status, 404);
  });

  await t.test('permissions and tenants', async (t) => {
    const viewer = await userToken(s, 'subject.viewer', ['view_subject']);
    const any = (await s.json(SUBJECTS, { token })).body.data[0];
    t.equal((await s.json(SUBJECTS, { token: viewer })).status, 200);
    t.equal((await s.json(SUBJECTS, send('POST', { name: 'No' }, viewer))).status, 403);
    t.equal((await s.json(one(any.id), send('PATCH', { name: 'No' }, viewer))).status, 403);
    t.equal((await s.request(one(any.id), { method: 'DELETE', token: viewer })).status, 403);
    await s.server.runtime.admin.createTenant('other');
    const other = await userToken(s, 'other.admin', ['view_subject', 'change_subject', 'delete_subject'], 'other');
    t.equal((await s.json(one(any.id), { token: other })).status, 404);
    t.equal((await s.json(one(any.id), send('PATCH', { name: 'Stolen' }, other))).status, 404);
    t.equal((await s.request(one(any.id), { method: 'DELETE', token: other })).status, 404);
    t.same((await s.json(SUBJECTS, { token: other })).body.data, [], "another tenant's subjects are not listed");
  });

  await t.test('the earthranger profile: no revision; the generic sensor POST answers data {}', async (t) => {
    const er = await earthRangerToken(s);
    const list = await s.json(`${SUBJECTS}?page_size=1`, { token: er });
    t.notOk('revision' in list.body.data.results[0]);
    t.ok('tracks_available' in list.body.data.results[0]);
    const created = await s.json(SUBJECTS, send('POST', { name: 'Profiled' }, er));
    t.equal(created.status, 201);
    t.notOk('revision' in created.body.data);
    const generic = await s.json('/api/v1.0/sensors/generic/er-provider/status', send('POST', observation('generic-1', 3), er));
    t.same([generic.status, generic.body.data], [201, {}]);
    const fieldops = await s.json('/api/v1.0/sensors/generic/er-provider/status', send('POST', observation('generic-1', 4), token));
    t.match(fieldops.body.data, { received: 1, created: 1 }, 'the fieldops profile keeps its counts');
  });
});
