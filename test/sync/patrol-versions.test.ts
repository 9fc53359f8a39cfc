/**
 * The server side of offline patrols (issue 16, revised by issue 26), on both databases: no
 * validators on patrols (rule 8) but a `revision` in the body; `If-Match` on PATCH/PUT with the
 * internal version older CLIs queued is still checked (412 when stale); notes and files with
 * client-supplied ids (409 on a repeat) leave the version and the revision alone; and
 * `updated_since` on the patrol and subject lists.
 */
import t from 'tap';
import { patrolEtag } from '../../server/domain/patrols/etag.js';
import { createType, send } from '../helpers/catalog.js';
import { ManualClock, dialect, startTestServer } from '../helpers/server.js';

const P = '/api/v1.0/activity/patrols';

t.test(`patrol versions and incremental lists (${dialect})`, async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12, 0, 0));
  const s = await startTestServer(t, { clock, env: { FIELDOPS_PATROL_SWEEP_SECONDS: '0' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  await createType(s, token, { value: 'foot', display: 'Foot' });
  const id = '6f0e2c1a-4b5d-4e6f-8a7b-9c0d1e2f3a4b';
  const segment = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  const created = await s.json(P, send('POST', { id, title: 'North', patrol_segments: [{ id: segment, patrol_type: 'foot', time_range: { start_time: '2026-11-20T11:00:00+00:00' } }] }, token));
  t.equal(created.status, 201);
  t.equal(created.headers.get('etag'), null, 'no ETag on the created patrol (rule 8)');
  t.equal(created.body.revision, 1, 'its revision instead');
  // The version tag older CLIs read from issue 16's servers: internal now, never served.
  const { repos } = s.server.runtime.store;
  const tenantId = (await repos.tenants.findByName('default'))!.id;
  const version = async () => patrolEtag((await repos.patrols.findPatrol(tenantId, id))!, await repos.patrols.segmentsOf(tenantId, [id]));
  const tag = await version();
  t.match(tag, /^"p[A-Za-z0-9_-]+"$/, 'the internal version is a strong tag');

  await t.test('GET carries no validator and never a 304; nor does the list (rule 8)', async (t) => {
    const one = await s.request(`${P}/${id}`, { token });
    t.equal(one.headers.get('etag'), null);
    t.equal(one.headers.get('last-modified'), null);
    t.equal((await s.request(`${P}/${id}`, { token, headers: { 'If-None-Match': tag } })).status, 200, 'If-None-Match is never answered 304');
    t.equal((await s.request(P, { token })).headers.get('etag'), null, 'no validators on the list');
  });

  await t.test('a note or a file does not change the version; If-Match decides PATCH', async (t) => {
    const noteId = '8b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e';
    const note = await s.json(`${P}/${id}/notes`, send('POST', { id: noteId, text: 'Fence cut at km 4' }, token));
    t.equal(note.status, 201);
    t.equal(note.body.id, noteId, 'the client-supplied note id is kept');
    const again = await s.json(`${P}/${id}/notes`, send('POST', { id: noteId, text: 'Fence cut at km 4' }, token));
    t.equal(again.status, 409, 'a repeated note id is 409');
    t.equal((await s.json(`${P}/${id}/notes`, { token })).body.length, 1, 'and adds nothing');

    const form = new FormData();
    const fileId = '9c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f';
    form.set('id', fileId);
    form.set('filecontent.file', new Blob([Buffer.from('%PDF-1.4 test')]), 'report.pdf');
    const upload = await s.json(`${P}/${id}/files`, { method: 'POST', body: form, token });
    t.equal(upload.status, 201, JSON.stringify(upload.body));
    t.equal(upload.body.id, fileId);
    const form2 = new FormData();
    form2.set('id', fileId);
    form2.set('filecontent.file', new Blob([Buffer.from('%PDF-1.4 test')]), 'report.pdf');
    t.equal((await s.json(`${P}/${id}/files`, { method: 'POST', body: form2, token })).status, 409, 'a repeated file id is 409');

    t.equal(await version(), tag, 'notes and files leave the version alone');
    t.equal((await s.json(`${P}/${id}`, { token })).body.revision, 1, 'and the revision');
    const revalidated = await s.json(`${P}/${id}`, { token, headers: { 'If-None-Match': tag } });
    t.equal(revalidated.status, 200, 'so If-None-Match with that tag gets the patrol, not a 304 that would hide the new note');
    t.same(revalidated.body.notes.map((n: { id: string }) => n.id), [noteId]);
    clock.advance(1000);
    const end = { patrol_segments: [{ id: segment, time_range: { start_time: '2026-11-20T11:00:00+00:00', end_time: '2026-11-20T12:00:00+00:00' } }] };
    const patched = await s.json(`${P}/${id}`, { ...send('PATCH', end, token), headers: { 'Content-Type': 'application/json', 'If-Match': tag } });
    t.equal(patched.status, 200, JSON.stringify(patched.body));
    t.equal(patched.body.state, 'done');
    t.equal(patched.headers.get('etag'), null, 'the update answer carries no ETag');
    t.equal(patched.body.revision, 2, 'but the new revision');
    const newTag = await version();
    t.not(newTag, tag, 'a write moves the version');
    const stale = await s.json(`${P}/${id}`, { ...send('PATCH', { title: 'Mine' }, token), headers: { 'Content-Type': 'application/json', 'If-Match': tag } });
    t.equal(stale.status, 412, 'a stale If-Match is 412');
    t.equal(stale.body.status.code, 412);
    t.equal((await s.json(`${P}/${id}`, { token })).body.title, 'North', 'and nothing changed');
    const put = await s.json(`${P}/${id}`, { ...send('PUT', { title: 'Theirs' }, token), headers: { 'Content-Type': 'application/json', 'If-Match': newTag } });
    t.equal(put.status, 200, 'the current tag passes on PUT too');
  });

  await t.test('updated_since on patrols and subjects', async (t) => {
    const since = new Date(clock.current).toISOString();
    clock.advance(60_000);
    const other = await s.json(P, send('POST', { title: 'South' }, token));
    t.equal(other.status, 201);
    const changed = await s.json(`${P}?updated_since=${encodeURIComponent(new Date(clock.current).toISOString())}`, { token });
    t.same(changed.body.results.map((p: any) => p.title), ['South'], 'only what changed at or after the time');
    t.equal((await s.json(`${P}?updated_since=${encodeURIComponent(since)}`, { token })).body.count, 2);
    const bad = await s.json(`${P}?updated_since=yesterday`, { token });
    t.equal(bad.status, 400);
    t.ok(bad.body.updated_since, 'the field is named');

    const tenant = (await s.server.runtime.store.repos.tenants.findByName('default'))!;
    await s.server.runtime.services.subjects.create(tenant.id, { name: 'Old ranger' });
    clock.advance(60_000);
    const cut = new Date(clock.current).toISOString();
    await s.server.runtime.services.subjects.create(tenant.id, { name: 'New ranger' });
    const subjects = await s.json(`/api/v1.0/subjects?updated_since=${encodeURIComponent(cut)}`, { token });
    t.equal(subjects.status, 200);
    t.same(subjects.body.data.map((x: any) => x.name), ['New ranger']);
    clock.advance(60_000);
    const moved = new Date(clock.current).toISOString();
    const obs = await s.json('/api/v1.0/sensors/gps-radio/collars/status', send('POST', { location: { lat: -1.2, lon: 36.8 }, recorded_at: moved, manufacturer_id: 'c-1', subject_name: 'Old ranger' }, token));
    t.ok(obs.status === 201 || obs.status === 200, JSON.stringify(obs.body));
    const afterMove = await s.json(`/api/v1.0/subjects?updated_since=${encodeURIComponent(moved)}`, { token });
    t.ok(afterMove.body.data.some((x: any) => x.last_position_date || x.last_position), 'a subject with a new position is listed');
    t.equal((await s.json('/api/v1.0/subjects?updated_since=soon', { token })).status, 400);
  });
});
