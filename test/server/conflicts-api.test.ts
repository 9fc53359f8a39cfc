import t from 'tap';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { CONFLICTS, ONE, createEvent, createSightingType, history, historyOf, offline, revisionOf } from './merge/merge-support.js';

/** The conflicts API (issue 26 §3): list, record history, resolve with mine or theirs, stale, tenant isolation. */
t.test(`conflicts API (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;
  await createSightingType(s, token);
  const patch = (id: string, body: unknown) => s.json(`${ONE}/${id}`, send('PATCH', body, token));
  const resolve = (id: string, choice: unknown, bearer = token) => s.json(`${CONFLICTS}/${id}/resolve`, send('POST', { choice }, bearer));
  /** An event whose state HQ set to resolved while the laptop (based before) set it to active: one open conflict. */
  const conflicted = async () => {
    const { id, revision } = await createEvent(s, token);
    await patch(id, { state: 'resolved' });
    await s.json(`${ONE}/${id}`, offline('PATCH', { state: 'active' }, token, revision, 'laptop-9'));
    const { body } = await s.json(`${CONFLICTS}?status=open&record=${id}`, { token });
    return { id, conflict: body.conflicts[0] };
  };

  await t.test('list and history', async (t) => {
    const { id, conflict } = await conflicted();
    t.match(conflict, { field: 'state', base: 'new', mine: 'active', theirs: 'resolved', status: 'open', device: 'laptop-9' });
    const open = await s.json(`${CONFLICTS}?status=open&kind=event`, { token });
    t.equal(open.status, 200);
    t.ok(open.body.conflicts.some((c: { id: string }) => c.id === conflict.id), 'listed among the open conflicts');
    t.equal((await s.json(`${CONFLICTS}?status=maybe`, { token })).status, 400, 'an unknown status is 400');
    const h = await s.json(history('event', id), { token });
    t.equal(h.status, 200);
    t.match(h.body.revisions[0], { device: 'laptop-9', conflicts: [conflict.id], fields: {} });
    t.match(h.body.conflicts, [{ id: conflict.id }]);
    t.equal((await s.json(history('event', '00000000-0000-4000-8000-000000000000'), { token })).status, 404);
    t.equal((await s.json(history('subject', id), { token })).status, 400, 'only events and patrols have a history');
  });

  await t.test('resolve with mine writes it as a settled revision; repeating answers the same; the other choice is refused', async (t) => {
    const { id, conflict } = await conflicted();
    const before = await revisionOf(s, token, 'event', id);
    const mine = await resolve(conflict.id, 'mine');
    t.equal(mine.status, 200, JSON.stringify(mine.body));
    t.match(mine.body, { id: conflict.id, status: 'settled', settled_by: 'mine', settled_revision: before + 1 });
    t.equal((await s.json(`${ONE}/${id}`, { token })).body.state, 'active', 'mine stands');
    t.match((await historyOf(s, token, 'event', id)).revisions[0], { action: 'settled', fields: { state: ['resolved', 'active'] } });
    const again = await resolve(conflict.id, 'mine');
    t.equal(again.status, 200, 'a repeat answers the settled conflict');
    t.equal(await revisionOf(s, token, 'event', id), before + 1, 'and writes nothing');
    t.equal((await resolve(conflict.id, 'theirs')).status, 409, 'the other choice: conflict_settled');
    t.equal((await resolve(conflict.id, 'neither')).status, 400);
  });

  await t.test('resolve with theirs settles without a write', async (t) => {
    const { id, conflict } = await conflicted();
    const before = await revisionOf(s, token, 'event', id);
    const theirs = await resolve(conflict.id, 'theirs');
    t.equal(theirs.status, 200);
    t.match(theirs.body, { status: 'settled', settled_by: 'theirs' });
    t.equal(await revisionOf(s, token, 'event', id), before, 'no new revision');
    t.equal((await s.json(`${ONE}/${id}`, { token })).body.state, 'resolved');
  });

  await t.test('mine on a field changed after the conflict is 409 conflict_stale', async (t) => {
    const { id, conflict } = await conflicted();
    await patch(id, { state: 'new' });
    const stale = await resolve(conflict.id, 'mine');
    t.equal(stale.status, 409);
    t.match(stale.body.status.detail, /changed after the conflict; it is now "new"/);
    t.equal((await s.json(`${ONE}/${id}`, { token })).body.state, 'new', 'nothing written');
    t.equal((await s.json(`${CONFLICTS}?status=open&record=${id}`, { token })).body.conflicts.length, 1, 'still open');
  });

  await t.test('tenant isolation and permissions', async (t) => {
    const { id, conflict } = await conflicted();
    await admin.createTenant('tenant-b');
    await admin.createUser({ tenant: 'tenant-b', username: 'b.super', password: 'Tenant-B-Pass-1', superuser: true });
    const other = (await s.login('b.super', 'Tenant-B-Pass-1')).access_token;
    t.same((await s.json(CONFLICTS, { token: other })).body.conflicts, [], 'another tenant lists none');
    t.equal((await resolve(conflict.id, 'mine', other)).status, 404, 'nor resolves one');
    t.equal((await s.json(history('event', id), { token: other })).status, 404, 'nor reads a history');
    await admin.createUser({ tenant: 'default', username: 'patrols.only', password: 'Patrols-Only-Pass-1', permissions: ['view_patrol'] });
    const patrolsOnly = (await s.login('patrols.only', 'Patrols-Only-Pass-1')).access_token;
    t.same((await s.json(CONFLICTS, { token: patrolsOnly })).body.conflicts, [], 'event conflicts need view_event');
    t.equal((await s.json(`${CONFLICTS}?kind=event`, { token: patrolsOnly })).status, 403);
    t.equal((await resolve(conflict.id, 'mine', patrolsOnly)).status, 403, 'resolving needs change_event');
    t.equal((await s.json(history('event', id), { token: patrolsOnly })).status, 403);
  });
});
