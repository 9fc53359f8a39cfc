import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const TRACKED = '/api/v1.0/activity/patrols/trackedby';

t.test(`tracked-by schema and choices (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const { subjects } = s.server.runtime.services;
  const token = (await s.login()).access_token;
  const tenant = (await s.server.runtime.store.repos.tenants.findByName('default'))!;

  await t.test('tracked-by lists the patrol-leader subjects the caller may view, as enum and enum_ext', async (t) => {
    const empty = await s.json(TRACKED, { token });
    t.same(empty.body.properties.leader.enum, []);
    t.equal(empty.body.$schema, 'http://json-schema.org/draft-04/schema#');
    t.equal(empty.headers.get('vary'), 'Authorization, User-Profile, Accept-Encoding', 'Accept-Encoding: JSON may be compressed');
    await subjects.create(tenant.id, { name: 'Ranger Amani', groups: [{ name: 'Rangers north', patrolLeaders: true }] });
    await subjects.create(tenant.id, { name: 'Ranger Baraka', groups: [{ name: 'Rangers south', patrolLeaders: true }] });
    await subjects.create(tenant.id, { name: 'Collar 17', subjectType: 'wildlife', subjectSubtype: 'elephant', groups: [{ name: 'Elephants' }] });
    const full = await s.json(TRACKED, { token, headers: { 'If-None-Match': empty.headers.get('etag')! } });
    t.equal(full.status, 200, 'a new subject changes the ETag');
    const names = full.body.properties.leader.enum.map((subject: { name: string }) => subject.name);
    t.same(names, ['Ranger Amani', 'Ranger Baraka'], 'superuser: every patrol-leader group, no wildlife');
    t.same(full.body.properties.leader.enum_ext.map((entry: { title: string }) => entry.title), names);
    t.same(full.body.properties.leader.enum_ext[0].value, full.body.properties.leader.enum[0]);
    t.equal(full.body.properties.leader.enum[0].content_type, 'observations.subject');

    const user = await admin.createUser({ tenant: 'default', username: 'north.ranger', password: 'Kingfisher-Pass-7', permissions: ['view_patrol'] });
    const ranger = (await s.login('north.ranger', 'Kingfisher-Pass-7')).access_token;
    const none = await s.json(TRACKED, { token: ranger });
    t.same(none.body.properties.leader.enum, [], 'a user sees only groups they may view');
    await subjects.allowUserToViewGroup(tenant.id, user.id, 'Rangers north');
    const north = await s.json(TRACKED, { token: ranger, headers: { 'If-None-Match': none.headers.get('etag')! } });
    t.equal(north.status, 200, 'granting a group changes the ETag');
    t.same(north.body.properties.leader.enum.map((subject: { name: string }) => subject.name), ['Ranger Amani']);
    t.equal((await s.request(TRACKED, { token: ranger, headers: { 'If-None-Match': north.headers.get('etag')! } })).status, 304);
  });

  await t.test('choices: CRUD, choices.json, deactivation, validation', async (t) => {
    const created = await s.json('/api/v2.0/choices', send('POST', { field: 'condition', value: 'good', display: 'Good', ordernum: 2 }, token));
    t.equal(created.status, 201);
    t.match(created.body, { field: 'condition', value: 'good', display: 'Good', ordernum: 2, is_active: true });
    await s.json('/api/v2.0/choices/', send('POST', { field: 'condition', value: 'poor', display: 'Poor', ordernum: 1 }, token));
    await s.json('/api/v2.0/choices', send('POST', { field: 'colour', value: 'grey', display: 'Grey' }, token));
    const duplicate = await s.json('/api/v2.0/choices', send('POST', { field: 'condition', value: 'good', display: 'Again' }, token));
    t.equal(duplicate.status, 400);
    const invalid = await s.json('/api/v2.0/choices', send('POST', { field: 'has space', value: 'Upper Case', display: 'x'.repeat(101) }, token));
    t.same(Object.keys(invalid.body).filter((key) => key !== 'status').sort(), ['display', 'field', 'value']);

    const json = await s.json('/v2.0/schemas/choices.json?field=condition', { token });
    t.equal(json.status, 200);
    t.equal(json.body.$id, `${s.url}/v2.0/schemas/choices.json?field=condition`);
    t.equal(json.body.$schema, 'https://json-schema.org/draft/2020-12/schema');
    t.same(json.body.oneOf, [
      { const: 'poor', title: 'Poor', description: 'condition' },
      { const: 'good', title: 'Good', description: 'condition' },
    ], 'ordered by ordernum');
    const both = await s.json('/api/v2.0/schemas/choices.json?field=colour,condition', { token });
    t.same(both.body.oneOf.map((entry: { const: string }) => entry.const), ['grey', 'poor', 'good']);
    t.equal((await s.json('/v2.0/schemas/choices.json', { token })).status, 400, 'field is required');
    t.equal((await s.json('/v2.0/schemas/choices.json?field=condition')).status, 401);

    const id = created.body.id;
    t.equal((await s.json(`/api/v2.0/choices/${id}`, send('PATCH', { display: 'Fine' }, token))).body.display, 'Fine');
    t.equal((await s.request(`/api/v2.0/choices/${id}`, { method: 'DELETE', token })).status, 204);
    t.same((await s.json('/v2.0/schemas/choices.json?field=condition', { token })).body.oneOf.map((e: { const: string }) => e.const), ['poor'], 'DELETE deactivates');
    t.equal((await s.json(`/api/v2.0/choices/${id}`, { token })).body.is_active, false, 'still readable');
    const list = await s.json('/api/v2.0/choices?field=condition&include_inactive=true', { token });
    t.equal(list.body.count, 2);
    t.equal((await s.json('/api/v2.0/choices?field=condition', { token })).body.count, 1);
    t.equal((await s.json('/api/v2.0/choices/not-a-uuid', { token })).status, 404);
    const page = await s.request('/api/v2.0/choices?include_inactive=true', { token });
    const etag = page.headers.get('etag')!;
    t.equal((await s.request('/api/v2.0/choices?include_inactive=True', { token, headers: { 'If-None-Match': etag } })).status, 304, 'choice lists revalidate too');
    await s.json('/api/v2.0/choices', send('POST', { field: 'colour', value: 'brown', display: 'Brown' }, token));
    t.equal((await s.request('/api/v2.0/choices?include_inactive=true', { token, headers: { 'If-None-Match': etag } })).status, 200, 'a change moves the ETag');
  });

  await t.test('choices are per tenant and need their permissions', async (t) => {
    await admin.createTenant('east');
    await admin.createUser({ tenant: 'east', username: 'east.admin', password: 'Eastern-Sun-Pass-1', superuser: true });
    const east = (await s.login('east.admin', 'Eastern-Sun-Pass-1')).access_token;
    t.same((await s.json('/v2.0/schemas/choices.json?field=condition', { token: east })).body.oneOf, []);
    const mine = (await s.json('/api/v2.0/choices?field=colour', { token })).body.results[0];
    t.equal((await s.json(`/api/v2.0/choices/${mine.id}`, { token: east })).status, 404);
    t.equal((await s.json(`/api/v2.0/choices/${mine.id}`, send('PATCH', { display: 'Stolen' }, east))).status, 404);
    await admin.createUser({ tenant: 'default', username: 'chooser', password: 'Sunbird-Pass-8', permissions: [] });
    const plain = (await s.login('chooser', 'Sunbird-Pass-8')).access_token;
    t.equal((await s.json('/v2.0/schemas/choices.json?field=colour', { token: plain })).status, 403, 'choices.json needs view_choice (or a type referencing the list), like the list (issue 13)');
    t.equal((await s.json('/api/v2.0/choices', { token: plain })).status, 403);
    t.equal((await s.json('/api/v2.0/choices', send('POST', { field: 'a', value: 'b' }, plain))).status, 403);
    await admin.createUser({ tenant: 'default', username: 'chooser.editor', password: 'Sunbird-Editor-Pass-9', permissions: ['change_choice'] });
    const editor = (await s.login('chooser.editor', 'Sunbird-Editor-Pass-9')).access_token;
    const grey = (await s.json('/api/v2.0/choices?field=colour', { token })).body.results[0];
    t.equal((await s.json(`/api/v2.0/choices/${grey.id}`, send('PATCH', { display: 'Slate' }, editor))).status, 200, 'change_choice alone may edit (no view_choice needed)');
    const concurrent = await Promise.all(['One', 'Two', 'Three'].map((display) => s.json(`/api/v2.0/choices/${grey.id}`, send('PATCH', { display }, token))));
    t.ok(concurrent.every((r) => r.status === 200), 'concurrent edits are serialised, none fails');
  });
});
