import t from 'tap';
import { ADMIN_PASSWORD, type TestServer, dialect, startTestServer } from '../helpers/server.js';
import { userToken } from './sensors-support.js';

type Json = Record<string, any>;

const SETS = '/api/v1.0/featureset';

export function boundaries(): Json {
  return {
    type: 'FeatureCollection',
    name: 'Park boundaries',
    features: [
      { type: 'Feature', properties: { title: 'North block', stroke: '#FF0000', 'stroke-width': 2 }, geometry: { type: 'Polygon', coordinates: [[[36.0, -1.0], [36.5, -1.0], [36.5, -0.5], [36.0, -0.5], [36.0, -1.0]]] } },
      { type: 'Feature', properties: { name: 'Gate', type_name: 'Gates' }, geometry: { type: 'Point', coordinates: [37.1, -1.9] } },
      { type: 'Feature', properties: null, geometry: { type: 'LineString', coordinates: [[36.9, -1.2], [37.0, -1.3]] } },
    ],
  };
}

async function earthRangerToken(s: TestServer): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_features', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_features', username: 'admin', password: ADMIN_PASSWORD }) });
  return String(((await response.json()) as Json).access_token);
}

t.test(`feature sets: import, featureset/ as the map reads it, bbox, feature/<id> (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const { features } = s.server.runtime.services;

  t.same((await s.json(SETS, { token })).body, { features: [] }, 'no sets: an empty list in the app\'s envelope');
  const imported = await features.importCollection('default', boundaries(), null);
  t.match(imported, { set: { name: 'Park boundaries' }, features: 3, replaced: false });

  await t.test('the web app reads the sets and each set from the body itself, in both profiles', async (t) => {
    for (const who of [token, await earthRangerToken(s)]) {
      const list = await s.json(`${SETS}/`, { token: who });
      t.equal(list.status, 200);
      t.same(list.body, { features: [{ id: imported.set.id, name: 'Park boundaries', feature_count: 3 }] });
      const set = await s.json(`${SETS}/${imported.set.id}`, { token: who });
      t.equal(set.body.type, 'FeatureCollection');
      t.same(set.body.features.map((f: Json) => f.properties.title), ['North block', 'Gate', ''], 'import order; title from title or name');
      const [block, gate] = set.body.features as Json[];
      t.match(block, { type: 'Feature', geometry: { type: 'Polygon' }, properties: { pk: block!.id, stroke: '#FF0000', 'stroke-width': 2, type_name: 'Park boundaries', featureset_id: imported.set.id }, bbox: [36, -1, 36.5, -0.5] });
      t.equal(gate!.properties.type_name, 'Gates', 'a feature\'s own type_name is kept');
    }
  });

  await t.test('bbox filters by extent; feature/<id>; spatialfeaturegroup/<id>', async (t) => {
    const boxed = await s.json(`${SETS}/${imported.set.id}?bbox=36.8,-1.5,37.5,-1.1`, { token });
    t.same(boxed.body.features.map((f: Json) => f.geometry.type), ['LineString'], 'only what meets the box');
    t.same((await s.json(`${SETS}/${imported.set.id}?bbox=36.4,-0.6,36.45,-0.55`, { token })).body.features.map((f: Json) => f.properties.title), ['North block'], 'inside a polygon\'s extent');
    t.equal((await s.json(`${SETS}/${imported.set.id}?bbox=1,2,3`, { token })).status, 400);
    t.equal((await s.json(`${SETS}/${imported.set.id}?bbox=10,5,0,0`, { token })).status, 400);
    const all = (await s.json(`${SETS}/${imported.set.id}`, { token })).body.features as Json[];
    const one = await s.json(`/api/v1.0/feature/${all[1]!.id}`, { token });
    t.match(one.body, { type: 'Feature', id: all[1]!.id, geometry: { type: 'Point', coordinates: [37.1, -1.9] } });
    t.equal((await s.json('/api/v1.0/feature/00000000-0000-4000-8000-000000000000', { token })).status, 404);
    t.equal((await s.json(`${SETS}/nope`, { token })).status, 404);
    const group = await s.json(`/api/v1.0/spatialfeaturegroup/${imported.set.id}`, { token: await earthRangerToken2(s) });
    t.match(group.body, { status: { code: 200 }, data: { id: imported.set.id, name: 'Park boundaries', features: [{}, {}, {}] } }, 'the Python client\'s feature group, wrapped');
  });

  await t.test('re-importing the same name replaces the features; bad input is an error, not a partial set', async (t) => {
    const smaller = { ...boundaries(), features: boundaries().features.slice(0, 1) };
    const again = await features.importCollection('default', smaller, null);
    t.match(again, { set: { id: imported.set.id }, features: 1, replaced: true });
    t.equal((await s.json(`${SETS}/${imported.set.id}`, { token })).body.features.length, 1);
    const broken = { type: 'FeatureCollection', features: [boundaries().features[0], { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [200, 0] } }] };
    await t.rejects(features.importCollection('default', broken, 'Broken'), { message: /features\[1\]\.geometry\.coordinates: \[200, 0\] is outside/ });
    await t.rejects(features.importCollection('default', { type: 'Feature' }, 'X'), { message: /not a GeoJSON FeatureCollection/ });
    await t.rejects(features.importCollection('default', { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [0, 0]]] } }] }, 'X'), { message: /at least 4 positions/ });
    await t.rejects(features.importCollection('default', boundaries(), '   '), { message: /needs a name/ }, 'a collection name is only a fallback for --name');
    t.same((await s.json(SETS, { token })).body.features.map((f: Json) => f.name), ['Park boundaries'], 'nothing written by a failed import');
  });

  await t.test('view_feature is needed; tenants do not see each other\'s sets', async (t) => {
    t.equal((await s.json(SETS, { token: await userToken(s, 'nofeatures', ['view_event']) })).status, 403);
    t.equal((await s.json(SETS, { token: await userToken(s, 'features', ['view_feature']) })).status, 200);
    await s.server.runtime.admin.createTenant('south');
    const south = await userToken(s, 'southviewer', ['view_feature'], 'south');
    t.same((await s.json(SETS, { token: south })).body, { features: [] });
    t.equal((await s.json(`${SETS}/${imported.set.id}`, { token: south })).status, 404);
  });
});

async function earthRangerToken2(s: TestServer): Promise<string> {
  const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_features', username: 'admin', password: ADMIN_PASSWORD }) });
  return String(((await response.json()) as Json).access_token);
}
