import t from 'tap';
import { ADMIN_PASSWORD, dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const E = '/api/v1.0/activity/events';

/** Events on the map (issue 27 §3): `geojson` on every event, `bbox`, `events/geojson`, `events/count`. */
t.test(`events on the map: geojson, bbox, events/geojson, events/count (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const schema = {
    json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: { count: { type: 'integer', title: 'Count', minimum: 1 } } },
    ui: { fields: { count: { type: 'NUMBER', inputType: 'NUMBER' } }, sections: {}, order: [], headers: {} },
  };
  t.equal((await s.json('/api/v2.0/activity/eventcategories', send('POST', { value: 'monitoring', display: 'Monitoring' }, token))).status, 201);
  for (const body of [{ value: 'sighting', display: 'Sighting', icon: 'rhino', category: 'monitoring', schema }, { value: 'plain', display: 'Plain', schema }]) {
    const created = await s.json('/api/v2.0/activity/eventtypes', send('POST', body, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
  }
  const post = async (body: Record<string, unknown>) => {
    const answer = await s.json(E, send('POST', { event_type: 'sighting', event_details: {}, ...body }, token));
    t.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body;
  };
  const nairobi = await post({ title: 'Nairobi', location: { latitude: -1.29, longitude: 36.82 }, time: '2026-11-20T08:00:00+00:00' });
  const mombasa = await post({ event_type: 'plain', location: { latitude: -4.04, longitude: 39.67 }, time: '2026-11-20T09:00:00+00:00', priority: 300 });
  const fiji = await post({ title: 'Fiji', location: { latitude: -17.7, longitude: 179.5 }, time: '2026-11-20T10:00:00+00:00' });
  const nowhere = await post({ title: 'Nowhere', time: '2026-11-20T11:00:00+00:00' });

  await t.test('geojson: a Point Feature with the type icon; null without a location', async (t) => {
    t.match(nairobi.geojson, {
      type: 'Feature', geometry: { type: 'Point', coordinates: [36.82, -1.29] },
      properties: { id: nairobi.id, title: 'Nairobi', event_type: 'sighting', event_category: 'monitoring', state: 'new', image: `${s.url}/static/sprite-src/rhino.svg` },
    });
    t.equal(nairobi.image_url, `${s.url}/static/sprite-src/rhino.svg`);
    t.equal(mombasa.geojson.properties.image, `${s.url}/static/sprite-src/plain.svg`, 'no icon: the value names it');
    t.equal(mombasa.geojson.properties.title, 'Plain', 'no title: the type display');
    t.equal(nowhere.geojson, null);
    const icon = await s.request(new URL(nairobi.geojson.properties.image).pathname);
    t.not(icon.status, 500, 'the icon route answers');
    const read = (await s.json(`/api/v1.0/activity/event/${nairobi.id}`, { token })).body;
    t.same(read.geojson, nairobi.geojson, 'the detail carries it too');
  });

  await t.test('bbox on the list (and across the antimeridian); malformed is 400', async (t) => {
    const ids = async (query: string) => ((await s.json(`${E}?${query}`, { token })).body.results as Array<{ id: string }>).map((event) => event.id).sort();
    t.same(await ids('bbox=36,-2,40,-1'), [nairobi.id]);
    t.same(await ids('bbox=36,-5,40,0'), [mombasa.id, nairobi.id].sort());
    t.same(await ids('bbox=179,-20,-179,-10'), [fiji.id], 'west > east crosses the antimeridian');
    t.same(await ids(`bbox=36,-5,40,0&filter=${encodeURIComponent(JSON.stringify({ priority: [300] }))}`), [mombasa.id], 'with the other filters');
    for (const bad of ['1,2,3', 'a,b,c,d', '200,0,10,10', '0,10,10,0', '0,0,1,1e999']) {
      const answer = await s.json(`${E}?bbox=${encodeURIComponent(bad)}`, { token });
      t.equal(answer.status, 400, bad);
      t.ok(answer.body.fields?.bbox ?? answer.body.status, 'names bbox');
    }
  });

  await t.test('events/geojson: a paginated FeatureCollection of the filtered, located events', async (t) => {
    const all = await s.json(`${E}/geojson`, { token });
    t.equal(all.status, 200, JSON.stringify(all.body));
    t.match(all.body, { type: 'FeatureCollection', count: 3, next: null, previous: null });
    t.equal(all.body.features.length, 3, 'the event without a location is left out');
    const first = await s.json(`${E}/geojson?page_size=2`, { token });
    t.equal(first.body.features.length, 2);
    t.ok(first.body.next, 'a next link');
    const second = await s.json(new URL(first.body.next).pathname + new URL(first.body.next).search, { token });
    t.equal(second.body.features.length, 1);
    t.same([...first.body.features, ...second.body.features].map((f: { properties: { id: string } }) => f.properties.id).sort(), [nairobi.id, mombasa.id, fiji.id].sort());
    const boxed = await s.json(`${E}/geojson?bbox=36,-2,40,-1`, { token });
    t.same(boxed.body.features.map((f: { properties: { id: string } }) => f.properties.id), [nairobi.id]);
    t.equal((await s.json(`${E}/geojson?bbox=nope`, { token })).status, 400);
  });

  await t.test('events/count: the filter\'s count', async (t) => {
    t.same((await s.json(`${E}/count`, { token })).body, { count: 4 });
    t.same((await s.json(`${E}/count?bbox=36,-5,40,0`, { token })).body, { count: 2 });
    t.same((await s.json(`${E}/count?event_type=plain`, { token })).body, { count: 1 });
    t.same((await s.json(`${E}/count?event_type=unknown`, { token })).body, { count: 0 });
    t.same((await s.json(`${E}/count?filter=${encodeURIComponent(JSON.stringify({ text: 'fiji' }))}`, { token })).body, { count: 1 });
  });

  await t.test('another tenant sees none of them', async (t) => {
    const { admin } = s.server.runtime;
    await admin.createTenant('map-b');
    await admin.createUser({ tenant: 'map-b', username: 'map.b', password: 'Map-B-Pass-1', superuser: true });
    const other = (await s.login('map.b', 'Map-B-Pass-1')).access_token;
    t.same((await s.json(`${E}/count`, { token: other })).body, { count: 0 });
    t.equal((await s.json(`${E}/geojson`, { token: other })).body.features.length, 0);
  });

  await t.test('the earthranger profile wraps them', async (t) => {
    await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_map', grants: ['password'], profile: 'earthranger' });
    const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_map', username: 'admin', password: ADMIN_PASSWORD }) });
    const er = String(((await response.json()) as { access_token: string }).access_token);
    t.match((await s.json(`${E}/count`, { token: er })).body, { data: { count: 4 }, status: { code: 200 } });
    t.match((await s.json(`${E}/geojson`, { token: er })).body, { data: { type: 'FeatureCollection', count: 3 } });
    const list = (await s.json(`${E}?bbox=36,-2,40,-1`, { token: er })).body;
    t.match(list.data.results[0], { geojson: { properties: { image: `${s.url}/static/sprite-src/rhino.svg` } } });
    t.notOk('revision' in list.data.results[0]);
  });
});
