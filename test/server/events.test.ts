import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const E = '/api/v1.0/activity/events';
const P = '/api/v1.0/activity/patrols';

t.test(`events: event_details validated against the v2 schema; segment events (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  for (const [value, display] of [['lion', 'Lion'], ['eland', 'Eland']]) await s.json('/api/v2.0/choices', send('POST', { field: 'species', value, display }, token));
  const schema = {
    json: {
      $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, required: ['species'],
      properties: {
        species: { type: 'string', title: 'Species', anyOf: [{ $ref: '/api/v2.0/schemas/choices.json?field=species' }] },
        count: { type: 'integer', title: 'Count', minimum: 1 },
      },
    },
    ui: { fields: { species: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['species'] } }, count: { type: 'NUMBER', inputType: 'NUMBER' } }, sections: {}, order: [], headers: {} },
  };
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting', default_priority: 100, default_state: 'active', schema }, token))).status, 201);

  await t.test('create: valid details, defaults from the type', async (t) => {
    const created = await s.json(E, send('POST', { event_type: 'sighting', time: '2026-11-20T10:00:00+03:00', location: { latitude: -1.2, longitude: 36.8 }, event_details: { species: 'lion', count: 3 } }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    t.match(created.body, { event_type: 'sighting', title: 'Sighting', priority: 100, state: 'active', time: '2026-11-20T07:00:00.000+00:00', location: { latitude: -1.2, longitude: 36.8 }, event_details: { species: 'lion', count: 3 } });
    t.equal((await s.json(`${E}/${created.body.id}`, { token })).body.id, created.body.id);
    t.equal((await s.json(E, { token })).body.count, 1);
  });

  await t.test('invalid details: 400 with pointers; a choice not in the list; undeclared fields', async (t) => {
    const bad = await s.json(E, send('POST', { event_type: 'sighting', event_details: { species: 'dragon', count: 0, colour: 'red' } }, token));
    t.equal(bad.status, 400);
    const pointers = bad.body.event_details.map((issue: { pointer: string }) => issue.pointer);
    t.ok(pointers.includes('/species'), 'the unknown choice');
    t.ok(pointers.includes('/count'), 'the minimum');
    t.ok(pointers.some((pointer: string) => pointer === '/colour' || pointer === ''), 'the undeclared field');
    t.equal((await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token))).status, 400, 'a required field');
    t.equal((await s.json(E, send('POST', { event_type: 'nope', event_details: {} }, token))).body.event_type[0].code, 'unknown_event_type');
    t.equal((await s.json(E, send('POST', { event_type: 'sighting', time: '2026-11-20T10:00:00', event_details: { species: 'lion' } }, token))).status, 400, 'time without offset');
    t.equal((await s.json(E, { token })).body.count, 1, 'nothing stored');
  });

  await t.test('patch: details revalidated; other fields alone', async (t) => {
    const id = (await s.json(E, { token })).body.results[0].id;
    t.equal((await s.json(`${E}/${id}`, send('PATCH', { event_details: { species: 'unicorn' } }, token))).status, 400);
    const patched = await s.json(`${E}/${id}`, send('PATCH', { state: 'resolved', event_details: { species: 'eland' } }, token));
    t.match(patched.body, { state: 'resolved', event_details: { species: 'eland' } });
    t.equal((await s.json(`${E}/00000000-0000-4000-8000-000000000000`, send('PATCH', { state: 'new' }, token))).status, 404);
  });

  await t.test('segment events: create and link, list per segment, link through patrol_segments', async (t) => {
    const patrol = (await s.json(P, send('POST', { title: 'With events', patrol_segments: [{}] }, token))).body;
    const segmentId = patrol.patrol_segments[0].id;
    const linked = await s.json(`${P}/segments/${segmentId}/events`, send('POST', { event_type: 'sighting', event_details: { species: 'lion' } }, token));
    t.equal(linked.status, 201);
    t.same(linked.body.patrol_segments, [segmentId]);
    const other = await s.json(E, send('POST', { event_type: 'sighting', event_details: { species: 'eland' }, patrol_segments: [segmentId] }, token));
    t.equal(other.status, 201);
    const list = await s.json(`${P}/segments/${segmentId}/events`, { token });
    t.equal(list.body.count, 2);
    t.same((await s.json(`${P}/segments/${segmentId}`, { token })).body.events.map((e: { id: string }) => e.id).sort(), [linked.body.id, other.body.id].sort());
    t.equal((await s.json(E, send('POST', { event_type: 'sighting', event_details: { species: 'lion' }, patrol_segments: ['00000000-0000-4000-8000-000000000000'] }, token))).status, 400, 'an unknown segment');
    t.equal((await s.json(`${P}/segments/00000000-0000-4000-8000-000000000000/events`, { token })).status, 404);
  });

  await t.test('permissions and tenancy', async (t) => {
    const { admin } = s.server.runtime;
    await admin.createUser({ tenant: 'default', username: 'event.viewer', password: 'Warthog-Pass-6', permissions: ['view_event'] });
    const viewer = (await s.login('event.viewer', 'Warthog-Pass-6')).access_token;
    t.equal((await s.json(E, { token: viewer })).status, 200);
    t.equal((await s.json(E, send('POST', { event_type: 'sighting', event_details: { species: 'lion' } }, viewer))).status, 403);
    await admin.createTenant('ev-other');
    await admin.createUser({ tenant: 'ev-other', username: 'ev.other', password: 'Honey-Badger-Pass-7', superuser: true });
    const other = (await s.login('ev.other', 'Honey-Badger-Pass-7')).access_token;
    const id = (await s.json(E, { token })).body.results[0].id;
    t.equal((await s.json(`${E}/${id}`, { token: other })).status, 404);
    t.equal((await s.json(E, send('POST', { event_type: 'sighting', event_details: { species: 'lion' } }, other))).status, 400, "another tenant's event type is unknown");
  });
});
