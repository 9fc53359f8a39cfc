import t from 'tap';
import { dialect, jsonBody, startTestServer } from '../helpers/server.js';
import { GPS, OBSERVATIONS, application, at, countRows, observation, post, userToken } from './sensors-support.js';

t.test(`sensor intake: gps-radio and generic (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const admin = (await s.login()).access_token;

  await t.test('one observation: 201 then 200 for the duplicate, under every path spelling', async (t) => {
    const first = await post(s, GPS, observation('collar-1', 0), admin);
    t.equal(first.status, 201);
    t.same(first.body, { data: { received: 1, created: 1, duplicates: 0 }, status: { code: 201, message: 'Created' } });
    for (const path of [GPS, `${GPS}/`, `/api/v1.0${GPS}`, `/api/v1.0${GPS}/`]) {
      const again = await post(s, path, observation('collar-1', 0), admin);
      t.equal(again.status, 200, path);
      t.same(again.body, { data: { received: 1, created: 0, duplicates: 1 }, status: { code: 200, message: 'OK' } });
    }
    const generic = await post(s, '/api/v1.0/sensors/generic/acme-collars/status', observation('collar-1', 1), admin);
    t.equal(generic.status, 201, 'the generic type path');
    t.equal(await countRows(s, 'observations'), 2);
    t.equal(await countRows(s, 'sensor_providers'), 1, 'one provider per key, whatever the path type');
  });

  await t.test('duplicates within a batch and across batches', async (t) => {
    const batch = [observation('collar-2', 0), observation('collar-2', 0, { location: { lat: 1, lon: 1 } }), observation('collar-2', 1)];
    const first = await post(s, GPS, batch, admin);
    t.equal(first.status, 201);
    t.same(first.body.data, { received: 3, created: 2, duplicates: 1 });
    const overlap = await post(s, GPS, [observation('collar-2', 1), observation('collar-2', 2)], admin);
    t.same([overlap.status, overlap.body.data], [201, { received: 2, created: 1, duplicates: 1 }]);
    const retry = await post(s, GPS, batch, admin);
    t.same([retry.status, retry.body.data], [200, { received: 3, created: 0, duplicates: 3 }]);
    const stored = await s.json(`${OBSERVATIONS}?page_size=100`, { token: admin });
    const mine = stored.body.data.results.filter((o: { recorded_at: string }) => o.recorded_at.startsWith('2026-11-20T05:0'));
    t.ok(mine.length >= 3);
    const firstFix = stored.body.data.results.find((o: { location: { latitude: number } }) => o.location.latitude === 1);
    t.notOk(firstFix, 'the first of two items with the same key is the one kept');
    t.equal(await countRows(s, 'observations'), 5);
  });

  await t.test('concurrent identical batches: exactly one copy, one 201, no 5xx', async (t) => {
    const batch = Array.from({ length: 50 }, (_, i) => observation(`herd-${i % 5}`, 100 + i, { subject_name: `Elephant ${i % 5}`, subject_groups: ['Elephants'] }));
    const before = await countRows(s, 'observations');
    const responses = await Promise.all(Array.from({ length: 8 }, () => post(s, GPS, batch, admin)));
    t.same(responses.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 201]);
    t.equal(responses.reduce((sum, r) => sum + r.body.data.created, 0), 50);
    t.equal(await countRows(s, 'observations'), before + 50);
    const elephants = await s.json('/api/v1.0/subjects', { token: admin });
    t.equal(elephants.body.data.filter((x: { name: string }) => x.name.startsWith('Elephant ')).length, 5, 'each subject created once');
    // Overlapping, not identical: every observation once.
    const a = Array.from({ length: 30 }, (_, i) => observation('overlap', 200 + i));
    const b = Array.from({ length: 30 }, (_, i) => observation('overlap', 215 + i));
    const both = await Promise.all([post(s, GPS, a, admin), post(s, GPS, b, admin), post(s, GPS, a, admin)]);
    t.ok(both.every((r) => r.status === 200 || r.status === 201));
    t.equal(both.reduce((sum, r) => sum + r.body.data.created, 0), 45);
    t.equal(await countRows(s, 'observations'), before + 95);
  });

  await t.test('an invalid item fails the whole batch, listing every invalid item with its index', async (t) => {
    const before = await countRows(s, 'observations');
    const batch = [
      { recorded_at: at(0), location: { lat: 0, lon: 0 } },
      observation('ok-1', 300),
      observation('ok-2', 300, { location: { lat: 91, lon: -181 } }),
      observation('ok-3', 300, { recorded_at: '2026-11-20T10:00:00' }),
      observation('ok-4', 300),
    ];
    const { status, body } = await post(s, GPS, batch, admin);
    t.equal(status, 400);
    t.equal(body.status.code, 400);
    t.match(body.status.detail, /3 of 5/);
    t.same([...new Set(body.observations.map((issue: { index: number }) => issue.index))], [0, 2, 3]);
    t.same(body.observations.map((issue: { pointer: string }) => issue.pointer), ['/0/manufacturer_id', '/2/location/lat', '/2/location/lon', '/3/recorded_at']);
    for (const issue of body.observations) t.ok(issue.code && issue.message && Array.isArray(issue.hints));
    t.equal(await countRows(s, 'observations'), before, 'nothing stored');
    t.equal(await countRows(s, 'sensor_sources', { manufacturer_id: 'ok-1' }), 0, 'not even the valid items\' sources');
  });

  await t.test('malformed payloads are 4xx with the error body, never 5xx', async (t) => {
    const cases: Array<[string, unknown, string, string]> = [
      ['missing location', { manufacturer_id: 'm', recorded_at: at(0) }, '/location', 'required'],
      ['missing recorded_at', { manufacturer_id: 'm', location: { lat: 0, lon: 0 } }, '/recorded_at', 'required'],
      ['lat as a string', observation('m', 0, { location: { lat: '1.5', lon: 0 } }), '/location/lat', 'invalid_type'],
      ['lon missing', observation('m', 0, { location: { lat: 1 } }), '/location/lon', 'required'],
      ['location an array', observation('m', 0, { location: [36.8, -1.2] }), '/location', 'invalid_type'],
      ['lat out of range', observation('m', 0, { location: { lat: -90.5, lon: 0 } }), '/location/lat', 'out_of_range'],
      ['NaN-like lon', observation('m', 0, { location: { lat: 0, lon: null } }), '/location/lon', 'required'],
      ['no offset', observation('m', 0, { recorded_at: '2026-11-20T10:00:00.000' }), '/recorded_at', 'invalid_datetime'],
      ['date only', observation('m', 0, { recorded_at: '2026-11-20' }), '/recorded_at', 'invalid_datetime'],
      ['impossible date', observation('m', 0, { recorded_at: '2026-02-30T10:00:00Z' }), '/recorded_at', 'invalid_datetime'],
      ['epoch number', observation('m', 0, { recorded_at: 1763632800000 }), '/recorded_at', 'invalid_type'],
      ['manufacturer_id a number', observation('m', 0, { manufacturer_id: 42 }), '/manufacturer_id', 'invalid_type'],
      ['manufacturer_id blank', observation('m', 0, { manufacturer_id: '  ' }), '/manufacturer_id', 'blank'],
      ['manufacturer_id too long', observation('x'.repeat(201), 0), '/manufacturer_id', 'max_length'],
      ['additional an array', observation('m', 0, { additional: [1] }), '/additional', 'invalid_type'],
      ['subject_groups a string', observation('m', 0, { subject_groups: 'Rhinos' }), '/subject_groups', 'invalid_type'],
      ['subject_groups with a number', observation('m', 0, { subject_groups: ['ok', 3] }), '/subject_groups/1', 'invalid'],
      ['subject_id not a uuid', observation('m', 0, { subject_id: 'rhino-7' }), '/subject_id', 'invalid'],
      ['unknown subject_id', observation('m', 0, { subject_id: '00000000-0000-4000-8000-000000000000' }), '/subject_id', 'unknown_subject'],
      ['an item that is not an object', ['hello'], '/0', 'invalid_type'],
      ['NUL in a name', observation('m\u0000x', 0), '/manufacturer_id', 'invalid'],
      ['control character in a group', observation('m', 0, { subject_groups: ['a\nb'] }), '/subject_groups/0', 'invalid'],
    ];
    for (const [name, body, pointer, code] of cases) {
      const response = await post(s, GPS, body, admin);
      t.equal(response.status, 400, name);
      t.ok(response.body.observations?.some((issue: { pointer: string; code: string }) => issue.pointer === pointer && issue.code === code), `${name}: ${JSON.stringify(response.body.observations)}`);
    }
    const whole: Array<[string, RequestInit, number, string]> = [
      ['malformed JSON', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[{"manufacturer_id": ' }, 400, 'body'],
      ['null body', jsonBody(null), 400, 'observations'],
      ['a number', jsonBody(7), 400, 'observations'],
      ['empty array', jsonBody([]), 400, 'observations'],
      ['no body', { method: 'POST' }, 400, 'observations'],
      ['1001 items', jsonBody(Array.from({ length: 1001 }, (_, i) => observation('big', i))), 400, 'observations'],
      ['form body', { method: 'POST', body: new URLSearchParams({ manufacturer_id: 'x' }) }, 415, 'status'],
    ];
    for (const [name, init, status, key] of whole) {
      const response = await s.json(GPS, { ...init, token: admin });
      t.equal(response.status, status, name);
      t.equal(response.body.status.code, status, name);
      t.ok(key in response.body, `${name}: ${key}`);
    }
    const oversized = await s.json(GPS, jsonBody(observation('m', 0, { additional: { blob: 'x'.repeat(1024 * 1024) } }), { token: admin }));
    t.equal(oversized.status, 413, 'a body over the JSON limit');
    t.equal(oversized.body.status.message, 'Payload Too Large');
    const exactly1000 = await post(s, GPS, Array.from({ length: 1000 }, (_, i) => observation('thousand', 1000 + i)), admin);
    t.same([exactly1000.status, exactly1000.body.data.created], [201, 1000], '1000 items is the limit, not over it');
    const badKey = await post(s, `/sensors/gps-radio/${'k'.repeat(101)}/status`, observation('m', 0), admin);
    t.equal(badKey.status, 400);
    t.equal(badKey.body.provider_key[0].code, 'invalid');
    t.equal((await post(s, '/sensors/%00/acme/status', observation('m', 0), admin)).status, 404, 'a control character in the type');
    t.equal((await post(s, `/sensors/${'t'.repeat(51)}/acme/status`, observation('m', 0), admin)).status, 404, 'a type longer than 50');
    t.equal((await post(s, '/sensors/gps-radio/a%00b/status', observation('m', 0), admin)).status, 400, 'a control character in the key');
  });

  await t.test('principals: 401 without credentials, 403 without add_observation, applications by client_id', async (t) => {
    const anonymous = await post(s, GPS, observation('auth', 0));
    t.equal(anonymous.status, 401);
    t.match((await s.request(GPS, jsonBody(observation('auth', 0)))).headers.get('www-authenticate'), /^Bearer/);
    const viewer = await userToken(s, 'obs.viewer', ['view_observation']);
    t.equal((await post(s, GPS, observation('auth', 0), viewer)).status, 403);
    const writer = await userToken(s, 'obs.writer', ['add_observation']);
    t.equal((await post(s, GPS, observation('auth', 0), writer)).status, 201, 'a user with add_observation');
    const gateway = await application(s, 'collar-gateway', ['add_observation']);
    t.equal((await post(s, `${GPS}?client_id=${gateway}`, observation('auth', 1))).status, 201, 'an application with add_observation');
    const readonly = await application(s, 'readonly-gateway', ['view_observation']);
    t.equal((await post(s, `${GPS}?client_id=${readonly}`, observation('auth', 2))).status, 403);
    t.equal((await post(s, `${GPS}?client_id=nobody`, observation('auth', 2))).status, 401, 'an unknown client');
    t.equal((await post(s, GPS, observation('auth', 2), 'not-a-token')).status, 401, 'a bad token');
  });

  await t.test('no request ended in a 5xx', async (t) => {
    t.notMatch(s.logs(), /"status":5\d\d/);
  });
});
