import t from 'tap';
import { ADMIN_PASSWORD, dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { feed } from './sync/feed-support.js';

const E = '/api/v1.0/activity/events';
const ONE = '/api/v1.0/activity/event';

/** Incidents (issue 27 §5): `contains` relationships at the paths er-client calls. */
t.test(`incidents: add and remove contained events (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const schema = {
    json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: {} },
    ui: { fields: {}, sections: {}, order: [], headers: {} },
  };
  for (const [value, collection] of [['sighting', false], ['incident', true]] as const) {
    const created = await s.json('/api/v2.0/activity/eventtypes', send('POST', { value, display: value, is_collection: collection, schema }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
  }
  const post = async (body: Record<string, unknown> = {}) => (await s.json(E, send('POST', { event_type: 'sighting', event_details: {}, ...body }, token))).body;
  const incident = await post({ event_type: 'incident', title: 'Poaching' });
  const a = await post({ title: 'Snare', location: { latitude: -1.2, longitude: 36.8 } });
  const b = await post({ title: 'Tracks' });
  const add = (from: string, to: string, init: Record<string, string> = {}) =>
    s.json(`${ONE}/${from}/relationships`, { ...send('POST', { type: 'contains', to_event_id: to }, token), headers: { 'Content-Type': 'application/json', ...init } });

  await t.test('add: 201 with the incident listing its events; the contained event shows is_contained_in', async (t) => {
    const first = await add(incident.id, a.id);
    t.equal(first.status, 201, JSON.stringify(first.body));
    t.equal(first.body.is_collection, true);
    t.match(first.body.contains, [{ type: 'contains', ordernum: 1, related_event: { id: a.id, title: 'Snare', geojson: { type: 'Feature' } } }]);
    t.equal((await add(incident.id, b.id)).status, 201);
    const read = (await s.json(`${ONE}/${incident.id}`, { token })).body;
    t.same(read.contains.map((item: { related_event: { id: string }; ordernum: number }) => [item.related_event.id, item.ordernum]), [[a.id, 1], [b.id, 2]], 'in the order added');
    const contained = (await s.json(`${ONE}/${a.id}`, { token })).body;
    t.match(contained.is_contained_in, [{ type: 'contains', related_event: { id: incident.id, is_collection: true } }]);
    t.same(contained.contains, []);
    const listed = (await s.json(`${E}?page_size=50`, { token })).body.results.find((event: { id: string }) => event.id === incident.id);
    t.equal(listed.contains.length, 2, 'the list shows them too');
  });

  await t.test('idempotent: adding it again changes nothing (200, same revision)', async (t) => {
    const before = (await s.json(`${ONE}/${incident.id}`, { token })).body;
    const again = await add(incident.id, a.id);
    t.equal(again.status, 200);
    t.equal(again.body.revision, before.revision, 'nothing written');
    t.equal(again.body.contains.length, 2);
  });

  await t.test('Idempotency-Key: a repeat is replayed', async (t) => {
    const c = await post({ title: 'Camp' });
    const first = await add(incident.id, c.id, { 'Idempotency-Key': 'rel-1' });
    t.equal(first.status, 201);
    const replay = await add(incident.id, c.id, { 'Idempotency-Key': 'rel-1' });
    t.equal(replay.status, 201);
    t.equal(replay.headers.get('idempotent-replayed'), 'true');
    t.equal((await s.request(`${ONE}/${incident.id}/relationship/contains/${c.id}/`, { method: 'DELETE', token })).status, 204);
  });

  await t.test('refused: cycles, itself, bad bodies, unknown events, another tenant', async (t) => {
    const nested = await post({ event_type: 'incident', title: 'Nested' });
    t.equal((await add(nested.id, incident.id)).status, 201, 'an incident may contain an incident');
    const cycle = await add(incident.id, nested.id);
    t.equal(cycle.status, 400);
    t.match(cycle.body, { to_event_id: [{ code: 'cycle' }] });
    t.equal((await add(a.id, a.id)).status, 400, 'itself');
    t.equal((await s.json(`${ONE}/${incident.id}/relationships`, send('POST', { type: 'is_linked_to', to_event_id: a.id }, token))).status, 400);
    t.equal((await s.json(`${ONE}/${incident.id}/relationships`, send('POST', { type: 'contains' }, token))).status, 400);
    t.equal((await add(incident.id, '00000000-0000-4000-8000-000000000000')).status, 404);
    t.equal((await add('00000000-0000-4000-8000-000000000000', a.id)).status, 404);
    t.equal((await s.request(`${ONE}/${nested.id}/relationship/contains/${incident.id}/`, { method: 'DELETE', token })).status, 204);

    const { admin } = s.server.runtime;
    await admin.createTenant('inc-b');
    await admin.createUser({ tenant: 'inc-b', username: 'inc.b', password: 'Inc-B-Pass-1', superuser: true });
    const other = (await s.login('inc.b', 'Inc-B-Pass-1')).access_token;
    t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'B', schema }, other))).status, 201);
    const theirs = (await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, other))).body;
    t.equal((await add(incident.id, theirs.id)).status, 404, "another tenant's event is unknown");
    t.equal((await s.json(`${ONE}/${incident.id}/relationships`, send('POST', { type: 'contains', to_event_id: a.id }, other))).status, 404);
  });

  await t.test('remove at relationship/contains/<to>/: 204, both events change, on the sync feed', async (t) => {
    const start = await feed(s, token, { cursor: null, scopes: ['ev:all'] });
    let cursor = start.body.cursor;
    while ((await feed(s, token, { cursor, scopes: ['ev:all'] })).body.changes.length) cursor = (await feed(s, token, { cursor, scopes: ['ev:all'] })).body.cursor;
    const before = (await s.json(`${ONE}/${b.id}`, { token })).body;
    t.equal((await s.request(`${ONE}/${incident.id}/relationship/contains/${b.id}/`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.request(`${ONE}/${incident.id}/relationship/contains/${b.id}/`, { method: 'DELETE', token })).status, 404, 'gone');
    const after = (await s.json(`${ONE}/${b.id}`, { token })).body;
    t.ok(after.revision > before.revision, 'the contained event moved');
    t.same(after.is_contained_in, []);
    t.same((await s.json(`${ONE}/${incident.id}`, { token })).body.contains.map((item: { related_event: { id: string } }) => item.related_event.id), [a.id]);
    const changes = (await feed(s, token, { cursor, scopes: ['ev:all'] })).body.changes as Array<{ id: string; record?: { contains?: unknown[] } }>;
    t.ok(changes.some((c) => c.id === incident.id), 'the incident is on the feed');
    t.ok(changes.some((c) => c.id === b.id), 'the released event is on the feed');
    t.equal((await s.request(`${ONE}/${incident.id}/relationship/other/${a.id}/`, { method: 'DELETE', token })).status, 404);
  });

  await t.test('editing a contained event changes the incident too: its revision, its ETag, its body', async (t) => {
    const before = await s.request(`${ONE}/${incident.id}`, { token });
    const etag = before.headers.get('etag')!;
    const revision = ((await before.json()) as { revision: number }).revision;
    const patched = await s.json(`${ONE}/${a.id}`, send('PATCH', { title: 'Snare, removed' }, token));
    t.equal(patched.status, 200, JSON.stringify(patched.body).slice(0, 200));
    const again = await s.request(`${ONE}/${incident.id}`, { token, headers: { 'If-None-Match': etag } });
    t.equal(again.status, 200, 'not a 304: the incident shows the contained event');
    const body = (await again.json()) as { revision: number; contains: Array<{ related_event: { id: string; title: string } }> };
    t.ok(body.revision > revision, 'the incident\'s revision moved');
    t.equal(body.contains.find((item) => item.related_event.id === a.id)?.related_event.title, 'Snare, removed');
  });

  await t.test('deleting a contained event releases it from the incident', async (t) => {
    t.equal((await s.request(`${ONE}/${a.id}`, { method: 'DELETE', token })).status, 204);
    t.same((await s.json(`${ONE}/${incident.id}`, { token })).body.contains, []);
  });

  await t.test('an incident holds at most MAX_CONTAINED events: one more is a 400, nothing written', async (t) => {
    const big = await post({ event_type: 'incident', title: 'Big' });
    const knex = s.server.runtime.database.knex;
    const tenant = (await knex('events').select('tenant_id').where({ id: big.id }).first()).tenant_id as string;
    // Filled directly (the cap is what is tested, not 500 requests): events then relationships.
    const now = Date.now();
    const ids = Array.from({ length: 500 }, () => crypto.randomUUID());
    const template = await knex('events').where({ id: b.id }).first();
    for (let i = 0; i < ids.length; i += 100) {
      await knex('events').insert(ids.slice(i, i + 100).map((id, k) => ({ ...template, id, serial_number: 900000 + i + k })));
      await knex('event_relationships').insert(ids.slice(i, i + 100).map((id, k) => ({ tenant_id: tenant, from_event_id: big.id, type: 'contains', to_event_id: id, ordernum: i + k + 1, created_at: now })));
    }
    const refused = await add(big.id, b.id);
    t.equal(refused.status, 400, JSON.stringify(refused.body).slice(0, 300));
    t.match(JSON.stringify(refused.body), /too_many|already contains 500/);
    t.equal(Number((await knex("event_relationships").where({ from_event_id: big.id }).count({ n: "*" }).first())?.n), 500, "nothing added");
  });

  await t.test('the earthranger profile: wrapped, no revision', async (t) => {
    await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_inc', grants: ['password'], profile: 'earthranger' });
    const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_inc', username: 'admin', password: ADMIN_PASSWORD }) });
    const er = String(((await response.json()) as { access_token: string }).access_token);
    const added = await s.json(`${ONE}/${incident.id}/relationships`, send('POST', { to_event_id: b.id, type: 'contains' }, er));
    t.equal(added.status, 201);
    t.match(added.body, { data: { id: incident.id, contains: [{ related_event: { id: b.id } }] }, status: { code: 201 } });
    t.notOk('revision' in added.body.data);
    const removed = await s.json(`${ONE}/${incident.id}/relationship/contains/${b.id}/`, { method: 'DELETE', token: er });
    t.match(removed, { status: 200, body: { data: null } });
  });
});
