import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { GPS, OBSERVATIONS, at, countRows, epochOf, observation, post, userToken } from './sensors-support.js';

t.test(`subjects, observations read back, tenancy (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const admin = (await s.login()).access_token;
  const { admin: adminService, store } = s.server.runtime;
  const tenantId = (await store.repos.tenants.findByName('default'))!.id;
  const subjectsVersion = async () => (await store.repos.catalog.version(tenantId, 'subjects')).version;

  await t.test('subjects are matched or created, with subtype and groups, bumping the subjects catalog', async (t) => {
    const v0 = await subjectsVersion();
    const created = await post(s, GPS, [
      observation('rhino-tag-1', 0, { subject_name: 'Kifaru', subject_subtype: 'rhino', subject_groups: ['Rhinos', 'North block'] }),
      observation('rhino-tag-1', 5, { subject_name: 'Kifaru' }),
    ], admin);
    t.equal(created.status, 201);
    const v1 = await subjectsVersion();
    t.ok(v1 > v0, 'creating a subject bumps the version');
    const list = await s.json('/api/v1.0/subjects', { token: admin });
    t.equal(list.status, 200);
    t.same(list.body.status, { code: 200, message: 'OK' });
    const kifaru = list.body.data.find((x: { name: string }) => x.name === 'Kifaru');
    t.match(kifaru, { subject_type: 'wildlife', subject_subtype: 'rhino', subject_groups: ['North block', 'Rhinos'], last_position_date: '2026-11-20T05:05:00.000+00:00' });
    t.same(kifaru.last_position.geometry, { type: 'Point', coordinates: [36.82, -1.29 + 5 / 1000] });
    t.equal(kifaru.last_position_status, null, 'no radio state from a collar');

    await post(s, GPS, observation('rhino-tag-1', 6, { subject_name: 'Kifaru', subject_subtype: 'rhino' }), admin);
    t.equal(await subjectsVersion(), v1, 'a fix that changes no subject leaves the version alone');
    await post(s, GPS, observation('rhino-tag-1', 7), admin);
    t.equal(await countRows(s, 'subjects', { name: 'Kifaru' }), 1, 'without a name the source keeps its subject');
    t.equal(await countRows(s, 'subjects', { name: 'rhino-tag-1' }), 0);

    await post(s, GPS, observation('rhino-tag-1', 8, { subject_subtype: 'elephant' }), admin);
    t.ok((await subjectsVersion()) > v1, 'a subtype change bumps the version');
    const detail = await s.json(`/api/v1.0/subject/${kifaru.id}`, { token: admin });
    t.same([detail.status, detail.body.data.subject_subtype], [200, 'elephant']);
    t.equal((await s.json(`/api/v1.0/subjects/${kifaru.id}/`, { token: admin })).body.data.id, kifaru.id);

    const unnamed = await post(s, GPS, observation('anon-collar', 0), admin);
    t.equal(unnamed.status, 201);
    const anon = (await s.json('/api/v1.0/subjects', { token: admin })).body.data.find((x: { name: string }) => x.name === 'anon-collar');
    t.match(anon, { subject_subtype: 'ranger', subject_type: 'person' }, 'a new source without a name tracks a subject named after it (the original\'s default subtype, ranger)');

    const byId = await post(s, GPS, observation('spare-collar', 0, { subject_id: kifaru.id }), admin);
    t.equal(byId.status, 201);
    const fixes = await s.json(`${OBSERVATIONS}?subject_id=${kifaru.id}`, { token: admin });
    t.equal(fixes.body.data.count, 6, 'subject_id attributes the fix to that subject');
  });

  await t.test('the latest position only moves forwards in time', async (t) => {
    await post(s, GPS, observation('order-tag', 50, { subject_name: 'Ordered', location: { lat: 5, lon: 5 } }), admin);
    await post(s, GPS, [observation('order-tag', 40, { subject_name: 'Ordered', location: { lat: 4, lon: 4 } })], admin);
    const subject = (await s.json('/api/v1.0/subjects', { token: admin })).body.data.find((x: { name: string }) => x.name === 'Ordered');
    t.same(subject.last_position.geometry.coordinates, [5, 5]);
    t.equal(subject.last_position_date, new Date(epochOf(50)).toISOString().replace('Z', '+00:00'));
  });

  await t.test('observations: paginated, filtered by source, subject and time, ordered', async (t) => {
    await post(s, GPS, Array.from({ length: 12 }, (_, i) => observation('paged', 500 + i, { subject_name: 'Paged', additional: { battery: 90 - i } })), admin);
    const first = await s.json(`${OBSERVATIONS}?page_size=5&since=${encodeURIComponent(at(500))}`, { token: admin });
    t.equal(first.status, 200);
    t.equal(first.body.status.code, 200);
    t.equal(first.body.data.count, 12);
    t.equal(first.body.data.results.length, 5);
    t.equal(first.body.data.previous, null);
    t.match(first.body.data.next, /page=2/);
    const fix = first.body.data.results[0];
    t.same(Object.keys(fix).sort(), ['created_at', 'id', 'location', 'observation_details', 'recorded_at', 'source', 'subject']);
    t.equal(fix.recorded_at, new Date(epochOf(500)).toISOString().replace('Z', '+00:00'));
    t.same(fix.observation_details, { battery: 90 });
    const last = await s.json(`${OBSERVATIONS}?page_size=5&page=3&since=${encodeURIComponent(at(500))}`, { token: admin });
    t.same([last.body.data.results.length, last.body.data.next], [2, null]);
    t.equal((await s.json(`${OBSERVATIONS}?page_size=5&page=4&since=${encodeURIComponent(at(500))}`, { token: admin })).status, 404, 'a page past the end');

    const window = await s.json(`${OBSERVATIONS}?source_id=${fix.source}&since=${encodeURIComponent(at(503))}&until=${encodeURIComponent(at(505))}&ordering=-recorded_at`, { token: admin });
    t.same(window.body.data.results.map((o: { observation_details: { battery: number } }) => o.observation_details.battery), [85, 86, 87], 'inclusive bounds, newest first');
    const bySubject = await s.json(`${OBSERVATIONS}?subject_id=${fix.subject}&page_size=100`, { token: admin });
    t.equal(bySubject.body.data.count, 12);
    const unplussed = await s.json(`${OBSERVATIONS}?since=${at(511)}`, { token: admin });
    t.equal(unplussed.status, 200, 'a + decoded to a space is put back');

    for (const query of ['source_id=nope', 'subject_id=1', 'since=2026-11-20T10:00:00', 'until=yesterday', 'ordering=name', 'page=0', 'page_size=x']) {
      const bad = await s.json(`${OBSERVATIONS}?${query}`, { token: admin });
      t.equal(bad.status, 400, query);
      t.equal(bad.body.status.code, 400, query);
    }
  });

  await t.test('permissions on the read side', async (t) => {
    t.equal((await s.json(OBSERVATIONS)).status, 401);
    t.equal((await s.json('/api/v1.0/subjects')).status, 401);
    const writer = await userToken(s, 'only.writer', ['add_observation']);
    t.equal((await s.json(OBSERVATIONS, { token: writer })).status, 403);
    t.equal((await s.json('/api/v1.0/subjects', { token: writer })).status, 403);
    const reader = await userToken(s, 'obs.reader', ['view_observation', 'view_subject']);
    t.equal((await s.json(OBSERVATIONS, { token: reader })).status, 200);
    t.equal((await s.json('/api/v1.0/subjects', { token: reader })).status, 200);
    t.equal((await s.json('/api/v1.0/subject/not-a-uuid', { token: reader })).status, 404);
    t.equal((await s.json('/api/v1.0/subject/00000000-0000-4000-8000-000000000000', { token: reader })).status, 404);
  });

  await t.test('tenant isolation: another tenant shares nothing and sees nothing', async (t) => {
    await adminService.createTenant('north');
    await adminService.createUser({ tenant: 'north', username: 'north.root', password: 'North-Sensor-Pass-1', superuser: true });
    const north = (await s.login('north.root', 'North-Sensor-Pass-1')).access_token;
    const before = await countRows(s, 'observations');
    const same = await post(s, GPS, observation('rhino-tag-1', 0, { subject_name: 'Kifaru' }), north);
    t.equal(same.status, 201, 'the same provider key, manufacturer id and time are new in another tenant');
    t.equal(await countRows(s, 'observations'), before + 1);
    t.equal(await countRows(s, 'sensor_providers', { provider_key: 'acme-collars' }), 2);
    const northSubjects = (await s.json('/api/v1.0/subjects', { token: north })).body.data;
    t.same(northSubjects.map((x: { name: string }) => x.name), ['Kifaru']);
    const northFixes = await s.json(OBSERVATIONS, { token: north });
    t.equal(northFixes.body.data.count, 1);
    const defaultKifaru = (await s.json('/api/v1.0/subjects', { token: admin })).body.data.find((x: { name: string }) => x.name === 'Kifaru');
    t.equal((await s.json(`/api/v1.0/subject/${defaultKifaru.id}`, { token: north })).status, 404, "another tenant's subject is 404");
    t.equal((await s.json(`${OBSERVATIONS}?subject_id=${defaultKifaru.id}`, { token: north })).body.data.count, 0);
    const hijack = await post(s, GPS, observation('north-tag', 0, { subject_id: defaultKifaru.id }), north);
    t.equal(hijack.status, 400, "another tenant's subject id is unknown here");
    t.equal(hijack.body.observations[0].code, 'unknown_subject');
  });

  await t.test('no request ended in a 5xx', async (t) => {
    t.notMatch(s.logs(), /"status":5\d\d/);
  });
});
