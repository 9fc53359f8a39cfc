import t from 'tap';
import { DOMParser } from '@xmldom/xmldom';
import { ManualClock, dialect, startTestServer } from '../helpers/server.js';
import { epochOf, userToken } from './sensors-support.js';
import { V1, assign, fixes, iso, sourceId, subjectId } from './tracks-support.js';

const DAY = 86_400_000;

t.test(`subject tracks, last positions and the KML feed (${dialect})`, async (t) => {
  // 2026-11-20T10:00Z: the fixes (05:00Z on) are today, the old ones 20 days back.
  const s = await startTestServer(t, { clock: new ManualClock(Date.UTC(2026, 10, 20, 10, 0, 0)) });
  if (!s) return;
  const admin = (await s.login()).access_token;
  const { admin: adminService } = s.server.runtime;
  await adminService.createClient({ tenant: 'default', clientId: 'das_web_client', grants: ['password'], profile: 'earthranger' });
  const erLogin = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'das_web_client', username: 'admin', password: 'Test-Superuser-Passphrase-7' }) });
  const er = ((await erLogin.json()) as { access_token: string }).access_token;

  await fixes(s, admin, 'trk-1', 'Tembo', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -20 * 24 * 60]);
  await fixes(s, admin, 'trk-2', 'Tembo', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await fixes(s, admin, 'trk-3', 'Loner', [3]);
  const tembo = await subjectId(s, 'Tembo');
  const loner = await subjectId(s, 'Loner');
  const [one, two, three] = [await sourceId(s, 'trk-1'), await sourceId(s, 'trk-2'), await sourceId(s, 'trk-3')];
  // trk-1 on Tembo until minute 5 (and since ever), then on Loner; trk-2 on Tembo from minute 5.
  await assign(s, [one, two, three], [
    { source: three, subject: loner, from: null, to: null },
    { source: one, subject: tembo, from: null, to: 5 },
    { source: two, subject: tembo, from: 5, to: null },
    { source: one, subject: loner, from: 5, to: null },
  ]);
  const minuteOf = (time: string) => Math.round((Date.parse(time) - epochOf(0)) / 60_000);

  await t.test('a track: each assignment clipped, newest first, times beside coordinates', async (t) => {
    const track = await s.json(`${V1}/subject/${tembo}/tracks`, { token: admin });
    t.equal(track.status, 200);
    t.equal(track.body.type, 'FeatureCollection');
    const [feature] = track.body.features;
    t.equal(feature.geometry.type, 'LineString');
    const times: string[] = feature.properties.coordinateProperties.times;
    t.same(times.map(minuteOf), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 'trk-2 from minute 5, trk-1 before it; the fix of 20 days ago is outside the default 16 days');
    t.equal(feature.geometry.coordinates.length, times.length);
    t.same(feature.geometry.coordinates[0], [30 + 9 / 100, 9 / 100]);
    t.match(feature.properties, { title: 'Tembo', id: tembo, subject_type: String, 'stroke-width': 2, radio_state: 'na', truncated: false });
    t.match(feature.properties.image, /\/static\/sprite-src\/[a-z-]+\.svg$/, 'the subject\'s icon');
    const icon = await fetch(new URL(new URL(feature.properties.image).pathname, s.url));
    t.equal(icon.status, 200, 'the track\'s image is served (no broken image on the map)');
    t.equal(icon.headers.get('content-type'), 'image/svg+xml');

    const window = await s.json(`${V1}/subject/${tembo}/tracks?since=${encodeURIComponent(iso(epochOf(3)))}&until=${encodeURIComponent(iso(epochOf(6)))}`, { token: admin });
    t.same(window.body.features[0].properties.coordinateProperties.times.map(minuteOf), [6, 5, 4, 3], 'since and until are inclusive');
    const old = await s.json(`${V1}/subject/${tembo}/tracks?since=${encodeURIComponent(iso(epochOf(0) - 30 * DAY))}`, { token: admin });
    t.equal(old.body.features[0].properties.coordinateProperties.times.length, 11, 'an earlier since reaches the old fix');

    const lonerTrack = await s.json(`${V1}/subject/${loner}/tracks`, { token: admin });
    t.same(lonerTrack.body.features[0].properties.coordinateProperties.times.map(minuteOf), [9, 8, 7, 6, 5, 3], 'trk-1 from minute 5, and trk-3 all along');
  });

  await t.test('a source track, an empty track, the earthranger profile', async (t) => {
    const bySource = await s.json(`${V1}/subject/${tembo}/source/${one}/tracks`, { token: admin });
    t.same(bySource.body.features[0].properties.coordinateProperties.times.map(minuteOf), [4, 3, 2, 1, 0]);
    const none = await s.json(`${V1}/subject/${tembo}/tracks?since=${encodeURIComponent(iso(epochOf(100)))}`, { token: admin });
    t.equal(none.body.features.length, 1, 'one feature even without points (the web app reads features[0])');
    t.equal(none.body.features[0].geometry, null);
    t.same(none.body.features[0].properties.coordinateProperties.times, []);

    const wrapped = await s.json(`${V1}/subject/${tembo}/tracks/`, { token: er });
    t.same(wrapped.body.status, { code: 200, message: 'OK' });
    t.equal(wrapped.body.data.features[0].properties.coordinateProperties.times.length, 10);
    t.notOk('truncated' in wrapped.body.data.features[0].properties, 'the original\'s properties exactly');
  });

  await t.test('inputs, permissions, tenants', async (t) => {
    t.equal((await s.json(`${V1}/subject/${tembo}/tracks?since=yesterday`, { token: admin })).status, 400);
    t.equal((await s.json(`${V1}/subject/${tembo}/tracks?since=2026-11-20T10:00:00`, { token: admin })).status, 400, 'no offset: 400 (CONTRACT §1)');
    t.equal((await s.json(`${V1}/subject/not-a-uuid/tracks`, { token: admin })).status, 404);
    t.equal((await s.json(`${V1}/subject/00000000-0000-4000-8000-000000000000/tracks`, { token: admin })).status, 404);
    t.equal((await s.json(`${V1}/subject/${tembo}/source/00000000-0000-4000-8000-000000000000/tracks`, { token: admin })).status, 404);
    t.equal((await s.json(`${V1}/subject/${tembo}/tracks`)).status, 401);
    const viewer = await userToken(s, 'subject.viewer', ['view_subject']);
    t.equal((await s.json(`${V1}/subject/${tembo}/tracks`, { token: viewer })).status, 403, 'tracks need view_observation');
    t.equal((await s.json(`${V1}/subjects/geojson`, { token: viewer })).status, 200, 'positions: view_subject suffices');
    t.equal((await s.json(`${V1}/subjects/kml`, { token: viewer })).status, 403);
    await adminService.createTenant('tracks-b');
    await adminService.createUser({ tenant: 'tracks-b', username: 'tracks.b', password: 'Tracks-B-Pass-1', superuser: true });
    const other = (await s.login('tracks.b', 'Tracks-B-Pass-1')).access_token;
    t.equal((await s.json(`${V1}/subject/${tembo}/tracks`, { token: other })).status, 404, 'another tenant\'s subject');
    t.same((await s.json(`${V1}/subjects/geojson`, { token: other })).body.features, []);
  });

  await t.test('subjects/geojson: last positions (not subjects/:id)', async (t) => {
    const positions = await s.json(`${V1}/subjects/geojson`, { token: admin });
    t.equal(positions.status, 200);
    const byId = new Map(positions.body.features.map((f: { properties: { id: string } }) => [f.properties.id, f]));
    t.match(byId.get(tembo), { geometry: { type: 'Point' }, properties: { title: 'Tembo', coordinateProperties: { time: iso(epochOf(9)) } } });
    t.ok(byId.has(loner));
    const wrapped = await s.json(`${V1}/subjects/geojson`, { token: er });
    t.equal(wrapped.body.data.type, 'FeatureCollection');
  });

  await t.test('subjects/kml: a folder per subject, its track in time order and its position', async (t) => {
    const response = await s.request(`${V1}/subjects/kml?start=${encodeURIComponent(iso(epochOf(0)))}`, { token: er });
    t.equal(response.status, 200);
    t.match(response.headers.get('content-type'), /^application\/vnd\.google-earth\.kml\+xml/);
    t.equal(response.headers.get('x-das-download-filename'), 'subjects.kml');
    const text = await response.text();
    if (response.status !== 200) t.comment(text, s.logs().split('\n').filter((l) => l.includes('"level":50')).join('\n'));
    t.notOk(text.startsWith('{'), 'raw in the earthranger profile');
    const doc = new DOMParser().parseFromString(text, 'application/xml');
    t.equal(doc.getElementsByTagName('parsererror').length, 0);
    const folders = Array.from(doc.getElementsByTagName('Folder'));
    const temboFolder = folders.find((f) => f.getElementsByTagName('name')[0]?.textContent === 'Tembo')!;
    t.ok(temboFolder, 'Tembo has a folder');
    const line = temboFolder.getElementsByTagName('LineString')[0]!.getElementsByTagName('coordinates')[0]!.textContent!.split(' ');
    t.equal(line.length, 10);
    t.equal(line[0], `${30},${0}`, 'oldest first in KML');
    t.equal(temboFolder.getElementsByTagName('begin')[0]!.textContent, iso(epochOf(0)));

    const root = await s.request(`${V1}/subjects/kml/root?start=${encodeURIComponent(iso(epochOf(0)))}&include_inactive=true&secret=x`, { token: er });
    t.equal(root.status, 200);
    const rootDoc = new DOMParser().parseFromString(await root.text(), 'application/xml');
    const href = rootDoc.getElementsByTagName('href')[0]!.textContent!;
    const link = new URL(href);
    t.equal(link.pathname, '/api/v1.0/subjects/kml');
    t.same([link.searchParams.get('start'), link.searchParams.get('include_inactive'), link.searchParams.get('secret')], [iso(epochOf(0)), 'true', null], 'the range and filter are passed on, nothing else');
    t.equal((await s.request(`${V1}/subjects/kml/root?start=soon`, { token: er })).status, 400);
  });
});
