import t from 'tap';
import { ManualClock, dialect, startTestServer } from '../helpers/server.js';
import { createType, send } from '../helpers/catalog.js';

const P = '/api/v1.0/activity/patrols';
const HOUR = 3600_000;

t.test(`patrols, segments, notes, automatic done (${dialect})`, async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12, 0, 0));
  const s = await startTestServer(t, { clock, env: { FIELDOPS_PATROL_SWEEP_SECONDS: '0' } });
  if (!s) return;
  let token = (await s.login()).access_token;
  const at = (hours: number) => new Date(clock.current + hours * HOUR).toISOString();
  await createType(s, token, { value: 'foot', display: 'Foot' });
  const tenant = (await s.server.runtime.store.repos.tenants.findByName('default'))!;
  const leader = await s.server.runtime.services.subjects.create(tenant.id, { name: 'Ranger Chebet', groups: [{ name: 'Leaders', patrolLeaders: true }] });
  const post = (body: unknown) => s.json(P, send('POST', body, token));

  await t.test('create with nested segments, client-supplied ids, retry is 409 and changes nothing', async (t) => {
    const id = '6f0e2c1a-4b5d-4e6f-8a7b-9c0d1e2f3a4b';
    const segmentId = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    const body = {
      id, title: 'Northern boundary', objective: 'Check the fence', priority: 200,
      patrol_segments: [{ id: segmentId, patrol_type: 'foot', leader: { content_type: 'observations.subject', id: leader.id }, scheduled_start: at(1), scheduled_end: at(5), start_location: { latitude: -1.5, longitude: 36.9 } }],
      notes: [{ text: 'Bring the pliers' }],
    };
    const created = await post(body);
    t.equal(created.status, 201, JSON.stringify(created.body));
    t.match(created.body, { id, serial_number: 1, title: 'Northern boundary', priority: 200, state: 'open' });
    const [segment] = created.body.patrol_segments;
    t.match(segment, { id: segmentId, patrol: id, patrol_type: 'foot', scheduled_start: new Date(clock.current + HOUR).toISOString().replace('Z', '+00:00'), time_range: { start_time: null, end_time: null }, start_location: { latitude: -1.5, longitude: 36.9 }, icon_id: 'foot', events: [] });
    t.equal(segment.leader.name, 'Ranger Chebet');
    t.equal(created.body.notes[0].text, 'Bring the pliers');
    t.equal(created.body.updates[0].type, 'add_patrol');
    const retry = await post({ ...body, title: 'Changed on retry' });
    t.equal(retry.status, 409, 'a retried create with the same id');
    t.equal((await s.json(`${P}/${id}`, { token })).body.title, 'Northern boundary', 'and nothing changed');
    t.equal((await s.json(P, { token })).body.count, 1);
    t.equal((await s.json(P, { token })).headers.get('etag'), null, 'no validators on patrols (rule 8)');
  });

  await t.test('validation: every rule, all at once, nothing half-saved', async (t) => {
    const bad = await post({
      title: 'x'.repeat(256), priority: 50, state: 'paused',
      patrol_segments: [{ patrol: 'nope', patrol_type: 'no_such_type', scheduled_start: at(3), scheduled_end: at(1), start_location: { latitude: 91, longitude: 0 } }],
    });
    t.equal(bad.status, 400);
    t.ok(bad.body.title && bad.body.priority && bad.body.state, 'patrol fields');
    t.match(bad.body['patrol_segments[0].patrol'], [{ code: 'not_allowed' }], 'a nested segment must not carry patrol (the specification; the fieldops profile), reported with the rest');
    const alone = await post({ title: 'Only the nested patrol is wrong', patrol_segments: [{ patrol_type: 'foot' }, { patrol: '6f0e2c1a-4b5d-4e6f-8a7b-9c0d1e2f3a4b', patrol_type: 'foot' }] });
    t.equal(alone.status, 400, 'a nested segment carrying patrol, alone');
    t.same(Object.keys(alone.body).filter((k) => k !== 'status'), ['patrol_segments[1].patrol']);
    t.ok(bad.body['patrol_segments[0].start_location'], 'latitude out of range');
    const types = await post({ patrol_segments: [{ patrol_type: 'no_such_type', leader: { content_type: 'accounts.user', id: '00000000-0000-4000-8000-000000000000' }, scheduled_start: at(3), scheduled_end: at(1), time_range: { start_time: at(2), end_time: at(1) } }] });
    t.equal(types.status, 400);
    t.same(Object.keys(types.body).filter((k) => k !== 'status').sort(), ['patrol_segments[0].leader', 'patrol_segments[0].patrol_type', 'patrol_segments[0].scheduled_end', 'patrol_segments[0].time_range']);
    t.equal((await post({ patrol_segments: [{ scheduled_start: '2026-11-20T10:00:00' }] })).status, 400, 'a time without offset');
    t.equal((await s.json(P, { token })).body.count, 1, 'nothing half-saved');
    t.equal((await s.json(`${P}/not-a-uuid`, { token })).status, 404);
  });

  await t.test('automatic done on write, reopening when an end is cleared, cancelled stays', async (t) => {
    const created = await post({ title: 'Short walk', patrol_segments: [{ patrol_type: 'foot', time_range: { start_time: at(-3), end_time: at(-1) } }] });
    t.equal(created.body.state, 'done', 'every segment ended in the past: done at once');
    t.match(created.body.updates.map((u: { message: string }) => u.message).join('|'), /changed to done automatically/);
    const segmentId = created.body.patrol_segments[0].id;
    const reopened = await s.json(`${P}/${created.body.id}`, send('PATCH', { patrol_segments: [{ id: segmentId, time_range: { end_time: null } }] }, token));
    t.equal(reopened.body.state, 'open', 'clearing the end reopens it');
    const future = await s.json(`${P}/segments/${segmentId}`, send('PATCH', { time_range: { end_time: at(2) } }, token));
    t.equal(future.status, 200);
    t.equal((await s.json(`${P}/${created.body.id}`, { token })).body.state, 'open', 'an end in the future: still open');
    const cancelled = await post({ state: 'cancelled', patrol_segments: [{ time_range: { start_time: at(-3), end_time: at(-2) } }] });
    t.equal(cancelled.body.state, 'cancelled', 'cancelled never changes automatically');
  });

  await t.test('the sweep completes what became due, once, attributed to the system', async (t) => {
    const open = (await s.json(P, { token })).body.results.filter((p: { state: string }) => p.state === 'open');
    t.ok(open.length >= 1);
    clock.advance(3 * HOUR);
    token = (await s.login()).access_token;
    const { sweeper } = s.server.runtime;
    const [first, second] = await Promise.all([sweeper.sweepOnce(), sweeper.sweepOnce()]);
    t.equal(first + second, 1, 'the short walk completed exactly once, though two sweeps ran');
    const walk = (await s.json(`${P}?filter=${encodeURIComponent(JSON.stringify({ text: 'short walk' }))}`, { token })).body.results[0];
    t.equal(walk.state, 'done');
    const systemUpdates = walk.updates.filter((u: { user: { username: string } }) => u.user.username === 'system');
    t.equal(systemUpdates.length, 1, 'one state change by the system');
    t.equal(await sweeper.sweepOnce(), 0, 'nothing left to do');
  });

  await t.test('standalone segments: patrol required, unknown patrol 400, duplicate id 409', async (t) => {
    const patrol = (await post({ title: 'Segment host' })).body;
    t.equal((await s.json(`${P}/segments`, send('POST', { patrol_type: 'foot' }, token))).status, 400);
    t.equal((await s.json(`${P}/segments`, send('POST', { patrol: '00000000-0000-4000-8000-000000000000' }, token))).body.patrol[0].code, 'unknown_patrol');
    const segment = await s.json(`${P}/segments`, send('POST', { id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e', patrol: patrol.id, patrol_type: 'foot', scheduled_start: at(1) }, token));
    t.equal(segment.status, 201);
    t.equal((await s.json(`${P}/segments`, send('POST', { id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e', patrol: patrol.id }, token))).status, 409);
    t.equal((await s.json(`${P}/${patrol.id}`, { token })).body.patrol_segments.length, 1);
    const list = await s.json(`${P}/segments?page_size=2`, { token });
    t.ok(list.body.count >= 4);
    t.ok(list.body.next);
  });

  await t.test('notes: list, get, create, update', async (t) => {
    const patrol = (await post({ title: 'Noted' })).body;
    const note = await s.json(`${P}/${patrol.id}/notes`, send('POST', { text: 'First' }, token));
    t.equal(note.status, 201);
    t.equal(note.body.created_by.username, 'admin');
    t.equal((await s.json(`${P}/${patrol.id}/notes/${note.body.id}`, send('PATCH', { text: 'Edited' }, token))).body.text, 'Edited');
    t.same((await s.json(`${P}/${patrol.id}/notes`, { token })).body.map((n: { text: string }) => n.text), ['Edited']);
    t.equal((await s.json(`${P}/${patrol.id}/notes`, send('POST', {}, token))).status, 400);
    t.equal((await s.json(`${P}/${patrol.id}/notes/00000000-0000-4000-8000-000000000000`, { token })).status, 404);
  });

  await t.test('list filters: bad JSON and keys are 400; statuses; text; types; leaders; empty', async (t) => {
    const q = (filter: unknown, extra = '') => s.json(`${P}?page_size=100&filter=${encodeURIComponent(typeof filter === 'string' ? filter : JSON.stringify(filter))}${extra}`, { token });
    t.equal((await q('{not json')).status, 400);
    t.equal((await q({ colour: 'red' })).status, 400);
    t.equal((await q({ date_range: { lower: 'yesterday' } })).status, 400);
    const badStatus = await s.json(`${P}?status=sleeping`, { token });
    t.equal(badStatus.status, 400);
    t.equal(badStatus.body.status.code, 400, 'the envelope survives a field named status');
    t.equal(badStatus.body.status_param[0].code, 'invalid', 'whose issues are under status_param');
    t.equal((await s.json(`${P}?exclude_empty_patrols=maybe`, { token })).status, 400);
    const titles = (response: { body: { results: Array<{ title: string }> } }) => response.body.results.map((p) => p.title).sort();
    t.same(titles(await q({ text: 'NORTHERN' })), ['Northern boundary']);
    t.ok(titles(await q({}, '&status=done')).includes('Short walk'));
    t.same(titles(await q({}, '&status=cancelled')), [null]);
    t.ok((await q({}, '&exclude_empty_patrols=true')).body.results.every((p: { patrol_segments: unknown[] }) => p.patrol_segments.length > 0));
    t.same(titles(await q({ tracked_by: [leader.id] })), ['Northern boundary']);
    t.ok(titles(await q({ patrol_type: ['foot'] })).includes('Short walk'), 'patrol types by value');
    const order = (await s.json(`${P}?page_size=100`, { token })).body.results.map((p: { state: string }) => p.state);
    const rank = { open: 0, done: 1, cancelled: 2 } as Record<string, number>;
    t.same(order, [...order].sort((a: string, b: string) => rank[a]! - rank[b]!), 'open, then done, then cancelled');
  });

  await t.test('derived statuses: scheduled, overdue, active', async (t) => {
    const make = async (title: string, segment: Record<string, unknown>) => (await post({ title, patrol_segments: [segment] })).body.id;
    await make('status scheduled', { scheduled_start: at(5), scheduled_end: at(8) });
    await make('status overdue', { scheduled_start: at(-5), scheduled_end: at(8) });
    await make('status active', { scheduled_start: at(-5), time_range: { start_time: at(-4) } });
    const titlesWith = async (status: string) => (await s.json(`${P}?page_size=100&status=${status}`, { token })).body.results.map((p: { title: string }) => p.title).filter((title: string) => title?.startsWith('status '));
    t.same(await titlesWith('scheduled'), ['status scheduled']);
    t.same(await titlesWith('overdue'), ['status overdue']);
    t.same(await titlesWith('active'), ['status active']);
    const both = (await s.json(`${P}?page_size=100&status=scheduled&status=active`, { token })).body.results.map((p: { title: string }) => p.title).filter((title: string) => title?.startsWith('status ')).sort();
    t.same(both, ['status active', 'status scheduled'], 'status repeats');
  });

  await t.test('permissions and tenancy', async (t) => {
    const { admin } = s.server.runtime;
    await admin.createUser({ tenant: 'default', username: 'patrol.viewer', password: 'Dik-Dik-Pass-3', permissions: ['view_patrol'] });
    const viewer = (await s.login('patrol.viewer', 'Dik-Dik-Pass-3')).access_token;
    const anyPatrol = (await s.json(P, { token })).body.results[0];
    t.equal((await s.json(P, { token: viewer })).status, 200);
    t.equal((await s.json(P, send('POST', {}, viewer))).status, 403);
    t.equal((await s.json(`${P}/${anyPatrol.id}`, send('PATCH', { title: 'x' }, viewer))).status, 403);
    t.equal((await s.json(`${P}/${anyPatrol.id}/notes`, send('POST', { text: 'x' }, viewer))).status, 403);
    await admin.createTenant('other');
    await admin.createUser({ tenant: 'other', username: 'other.admin', password: 'Other-Tenant-Pass-4', superuser: true });
    const other = (await s.login('other.admin', 'Other-Tenant-Pass-4')).access_token;
    t.equal((await s.json(`${P}/${anyPatrol.id}`, { token: other })).status, 404);
    t.equal((await s.json(`${P}/${anyPatrol.id}`, send('PATCH', { title: 'stolen' }, other))).status, 404);
    t.equal((await s.json(`${P}/${anyPatrol.id}/notes`, { token: other })).status, 404);
    t.equal((await s.json(`${P}/segments/${anyPatrol.patrol_segments[0]?.id ?? anyPatrol.id}`, { token: other })).status, 404);
    t.equal((await s.json(P, { token: other })).body.count, 0);
    const foreignLeader = await s.json(P, send('POST', { patrol_segments: [{ leader: { content_type: 'observations.subject', id: leader.id } }] }, other));
    t.equal(foreignLeader.status, 400, "another tenant's subject is an unknown leader");
  });
});
