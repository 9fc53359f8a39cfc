import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { GPS, OBSERVATIONS, at, countRows, observation, post, userToken } from './sensors-support.js';

type Json = Record<string, any>;

const V1 = '/api/v1.0';

function send(method: string, body: unknown, token: string): RequestInit & { token: string } {
  return { method, token, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) };
}

t.test(`sources, providers, assignments and POST observations (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const subject = async (name: string) => (await s.json(`${V1}/subjects`, send('POST', { name, subject_subtype: 'lion' }, token))).body.data as Json;

  await t.test('sources: create, read by id and manufacturer id, page, patch; providers', async (t) => {
    const created = await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'ST-100', source_type: 'tracking-device', model_name: 'SpoorTrack', provider: 'spoortrack', additional: { note: 1 } }, token));
    t.equal(created.status, 201);
    t.match(created.body.data, { manufacturer_id: 'ST-100', provider: 'spoortrack', model_name: 'SpoorTrack', content_type: 'observations.source', additional: { note: 1 } });
    const id = created.body.data.id;
    t.equal((await s.json(`${V1}/source/${id}`, { token })).body.data.id, id);
    t.equal((await s.json(`${V1}/source/ST-100/`, { token })).body.data.id, id, 'by manufacturer id');
    t.equal((await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'ST-100', provider: 'spoortrack' }, token))).status, 409);
    await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'ST-101' }, token));
    const page = await s.json(`${V1}/sources?page_size=1`, { token });
    t.match(page.body.data, { count: 2, previous: null });
    t.ok(page.body.data.next);
    const patched = await s.json(`${V1}/source/${id}`, send('PATCH', { model_name: 'SpoorTrack 2' }, token));
    t.equal(patched.body.data.model_name, 'SpoorTrack 2');
    const providers = (await s.json(`${V1}/sourceproviders`, { token })).body.data;
    t.same(providers.results.map((p: Json) => p.provider_key).sort(), ['default', 'spoortrack'], 'the default provider for a source without one');
    const made = await s.json(`${V1}/sourceproviders`, send('POST', { provider_key: 'savannah', display_name: 'Savannah' }, token));
    t.equal(made.status, 201);
    t.equal((await s.json(`${V1}/sourceproviders`, send('POST', { provider_key: 'savannah' }, token))).status, 409);
    const renamed = await s.json(`${V1}/sourceprovider/${made.body.data.id}`, send('PATCH', { display_name: 'Savannah Tracking' }, token));
    t.equal(renamed.body.data.display_name, 'Savannah Tracking');
  });

  await t.test('assignments attribute posted observations by time; unknown sources are refused; duplicates skipped', async (t) => {
    const simba = await subject('Simba');
    const nala = await subject('Nala');
    const first = await s.json(`${V1}/subjectsources`, send('POST', { subject: simba.id, source: 'ST-100', assigned_range: { lower: at(0), upper: at(60) } }, token));
    t.equal(first.status, 201);
    t.match(first.body.data.assigned_range, { lower: new Date(Date.parse(at(0))).toISOString().replace('Z', '+00:00'), bounds: '[)' });
    const second = await s.json(`${V1}/subjectsources`, send('POST', { subject: nala.id, source: 'ST-100', assigned_range: { lower: at(60) } }, token));
    t.equal(second.body.data.assigned_range.upper, null, 'open ended');
    t.equal((await s.json(`${V1}/subjectsources`, send('POST', { subject: nala.id, source: 'ST-100', assigned_range: { lower: at(5), upper: at(1) } }, token))).status, 400);
    t.equal((await s.json(`${V1}/subjectsources`, send('POST', { subject: nala.id, source: 'no-such' }, token))).status, 400);

    const posted = await s.json(`${V1}/observations`, send('POST', [
      { source: 'ST-100', recorded_at: at(10), location: { lat: -1.1, lon: 36.1 }, additional: { speed: 3 } },
      { source: first.body.data.source, recorded_at: at(70), location: { lat: -1.2, lon: 36.2 } },
    ], token));
    t.equal(posted.status, 201);
    t.same(posted.body.data.map((o: Json) => o.subject), [simba.id, nala.id], 'each fix goes to the subject assigned at its time');
    const single = await s.json(`${V1}/observations`, send('POST', { source: 'ST-100', recorded_at: at(10), location: { lat: -1.1, lon: 36.1 } }, token));
    t.same([single.status, single.body.data.id], [200, posted.body.data[0].id], 'a duplicate answers the stored observation');
    const unknown = await s.json(`${V1}/observations`, send('POST', { source: 'nope', recorded_at: at(10), location: { lat: 0, lon: 0 } }, token));
    t.equal(unknown.status, 400);
    t.equal(unknown.body.observations[0].pointer, '/source');
    t.equal((await s.json(`${V1}/observations`, send('POST', { source: 'ST-100', location: { lat: 0, lon: 0 } }, token))).status, 400, 'recorded_at is required');

    const nalaNow = (await s.json(`${V1}/subject/${nala.id}`, { token })).body.data;
    t.match(nalaNow, { tracks_available: true, last_position: { geometry: { coordinates: [36.2, -1.2] } } }, 'the status moved through the assignment');
    t.equal((await s.json(`${OBSERVATIONS}?subject_id=${simba.id}`, { token })).body.data.count, 1);

    const ofSubject = (await s.json(`${V1}/subject/${simba.id}/sources`, { token })).body.data;
    t.match(ofSubject, [{ manufacturer_id: 'ST-100', assigned_range: { bounds: '[)' } }]);
    t.equal((await s.json(`${V1}/subject/${nala.id}/subjectsources`, { token })).body.data[0].id, second.body.data.id);
    t.same((await s.json(`${V1}/source/ST-100/subjects`, { token })).body.data.map((x: Json) => x.name), ['Nala', 'Simba'], 'newest assignment first');
    const filtered = (await s.json(`${V1}/subjectsources?subjects=${simba.id}`, { token })).body.data;
    t.same(filtered.results.map((a: Json) => a.id), [first.body.data.id]);

    // Moving the first assignment re-attributes the fixes it covers.
    const moved = await s.json(`${V1}/subjectsource/${first.body.data.id}`, send('PATCH', { assigned_range: { lower: at(20), upper: at(60) } }, token));
    t.equal(moved.status, 200);
    t.equal((await s.json(`${OBSERVATIONS}?subject_id=${simba.id}`, { token })).body.data.count, 0, 'a fix outside every range belongs to no subject');
    t.equal((await s.request(`${V1}/subjectsource/${first.body.data.id}`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.request(`${V1}/subjectsource/${first.body.data.id}`, { method: 'DELETE', token })).status, 404);
  });

  await t.test('sensor intake opens an assignment when it links a source to a subject', async (t) => {
    await post(s, GPS, observation('intake-collar', 5, { subject_name: 'Kifaru' }), token);
    const kifaru = (await s.json(`${V1}/subjects?name=Kifaru`, { token })).body.data[0];
    const assignments = (await s.json(`${V1}/subject/${kifaru.id}/subjectsources`, { token })).body.data;
    t.equal(assignments.length, 1);
    t.same(assignments[0].assigned_range, { lower: new Date(Date.parse(at(5))).toISOString().replace('Z', '+00:00'), upper: null, bounds: '[)' }, 'from the first fix, open ended');
    await post(s, GPS, observation('intake-collar', 30, { subject_name: 'Faru' }), token);
    const after = (await s.json(`${V1}/subject/${kifaru.id}/subjectsources`, { token })).body.data;
    t.equal(after[0].assigned_range.upper, new Date(Date.parse(at(30))).toISOString().replace('Z', '+00:00'), 'the old one ends where the new one starts');
    const assigned = await countRows(s, 'subject_sources');
    await post(s, GPS, observation('intake-collar', 31, { subject_name: 'Faru' }), token);
    await post(s, GPS, observation('intake-collar', 32), token);
    t.equal(await countRows(s, 'subject_sources'), assigned, 'a steady stream adds no assignment');
  });

  await t.test('overlapping assignments: an earlier open one is closed where the new one starts; any other overlap is a 409', async (t) => {
    await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'OV-1', provider: 'spoortrack' }, token));
    const duma = await subject('Duma');
    const chui = await subject('Chui');
    const open = (await s.json(`${V1}/subjectsources`, send('POST', { subject: duma.id, source: 'OV-1', assigned_range: { lower: at(0) } }, token))).body.data;
    const moved = await s.json(`${V1}/subjectsources`, send('POST', { subject: chui.id, source: 'OV-1', assigned_range: { lower: at(30) } }, token));
    t.equal(moved.status, 201, 'the collar moved to another subject');
    const closed = (await s.json(`${V1}/subject/${duma.id}/subjectsources`, { token })).body.data.find((a: Json) => a.id === open.id);
    t.equal(closed.assigned_range.upper, new Date(Date.parse(at(30))).toISOString().replace('Z', '+00:00'), 'the earlier open assignment ends where the new one starts');
    const inside = await s.json(`${V1}/subjectsources`, send('POST', { subject: chui.id, source: 'OV-1', assigned_range: { lower: at(10), upper: at(20) } }, token));
    t.equal(inside.status, 409, 'inside a closed assignment: a conflict, nothing written');
    const stretched = await s.json(`${V1}/subjectsource/${open.id}`, send('PATCH', { assigned_range: { upper: at(40) } }, token));
    t.equal(stretched.status, 409, 'stretching one over another: a conflict');
    const assignments = (await s.json(`${V1}/subjectsources?sources=${moved.body.data.source}`, { token })).body.data;
    t.equal(assignments.count ?? assignments.length, 2, 'two assignments, no more');
  });

  await t.test('delete a source; permissions; another tenant sees nothing', async (t) => {
    const viewer = await userToken(s, 'source.viewer', ['view_source']);
    t.equal((await s.json(`${V1}/sources`, { token: viewer })).status, 200);
    t.equal((await s.json(`${V1}/sources`, send('POST', { manufacturer_id: 'X' }, viewer))).status, 403);
    t.equal((await s.json(`${V1}/subjectsources`, send('POST', { subject: 'x', source: 'y' }, viewer))).status, 403);
    t.equal((await s.json(`${V1}/observations`, send('POST', { source: 'ST-100', recorded_at: at(1), location: { lat: 0, lon: 0 } }, viewer))).status, 403);
    await s.server.runtime.admin.createTenant('other');
    const other = await userToken(s, 'other.sources', ['view_source', 'change_source', 'delete_source', 'add_observation'], 'other');
    t.equal((await s.json(`${V1}/source/ST-100`, { token: other })).status, 404);
    t.equal((await s.request(`${V1}/source/ST-100`, { method: 'DELETE', token: other })).status, 404);
    t.equal((await s.json(`${V1}/sources`, { token: other })).body.data.count, 0);
    t.equal((await s.json(`${V1}/subjectsources`, { token: other })).body.data.count, 0);
    t.equal((await s.json(`${V1}/observations`, send('POST', { source: 'ST-100', recorded_at: at(1), location: { lat: 0, lon: 0 } }, other))).status, 400, "another tenant's source is unknown");
    const id = (await s.json(`${V1}/source/ST-100`, { token })).body.data.id;
    t.equal((await s.request(`${V1}/source/${id}/`, { method: 'DELETE', token })).status, 204);
    t.equal((await s.json(`${V1}/source/ST-100`, { token })).status, 404);
    t.equal(await countRows(s, 'observations', { source_id: id }), 0, 'its observations went with it');
  });
});
