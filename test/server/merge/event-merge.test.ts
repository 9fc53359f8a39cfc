import t from 'tap';
import { send } from '../../helpers/catalog.js';
import { dialect, startTestServer } from '../../helpers/server.js';
import { CONFLICTS, ONE, createEvent, createSightingType, historyOf, offline, revisionOf, setPolicy } from './merge-support.js';

/** Offline event updates merged field by field (issue 26 §3), over HTTP with Fieldops-Base-Revision. */
t.test(`event merge (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await createSightingType(s, token);
  const patch = (id: string, body: unknown) => s.json(`${ONE}/${id}`, send('PATCH', body, token));

  await t.test('the laptop changes state while HQ changes the title: merged, and the history names the device', async (t) => {
    const { id, revision: base } = await createEvent(s, token);
    t.equal((await patch(id, { title: 'HQ title' })).status, 200);
    const merged = await s.json(`${ONE}/${id}`, offline('PATCH', { state: 'active', title: 'Gate' }, token, base, 'laptop-7'));
    t.equal(merged.status, 200, JSON.stringify(merged.body));
    t.match(merged.body, { title: 'HQ title', state: 'active' }, 'both changes stand (the title sent was the base: an echo)');
    const h = await historyOf(s, token, 'event', id);
    t.match(h.revisions[0], { device: 'laptop-7', base_revision: base, fields: { state: ['new', 'active'] }, merged: ['title'], action: 'updated' });
    t.notOk('title' in h.revisions[0].fields, 'the laptop\'s revision did not touch the title');
    t.match(h.revisions[1], { base_revision: null, fields: { title: ['Gate', 'HQ title'] } }, 'HQ\'s blind update is history too');
    t.same(h.conflicts, [], 'no conflict');
    t.ok(merged.body.updates.some((u: { message: string }) => /^Merged offline change from laptop-7: state \(kept title, changed here\)/.test(u.message)), 'the updates say so');
  });

  for (const [policy, stands, status] of [['hold', 'resolved', 'open'], ['server-wins', 'resolved', 'settled'], ['last-writer-wins', 'active', 'settled']] as const) {
    await t.test(`the same field on both sides, policy ${policy}: a conflict that keeps both values`, async (t) => {
      await setPolicy(s, policy);
      t.teardown(() => setPolicy(s, 'hold'));
      const { id, revision: base } = await createEvent(s, token);
      t.equal((await patch(id, { state: 'resolved' })).status, 200);
      const sent = await s.json(`${ONE}/${id}`, offline('PATCH', { state: 'active' }, token, base));
      t.equal(sent.status, 200, 'a conflict is not a refusal');
      t.equal(sent.body.state, stands, `${stands} stands`);
      const { body } = await s.json(`${CONFLICTS}?record=${id}`, { token });
      t.equal(body.conflicts.length, 1);
      t.match(body.conflicts[0], { kind: 'event', record: id, field: 'state', base: 'new', mine: 'active', theirs: 'resolved', status, policy: policy.replace(/-/g, '_'), device: 'laptop-1' });
      t.equal(body.conflicts[0].settled_by, status === 'open' ? null : 'policy');
      const line = policy === 'last-writer-wins' ? 'Conflict on state: took active from laptop-1, was resolved' : 'Conflict on state: kept resolved, laptop-1 sent active';
      t.ok(sent.body.updates.some((u: { message: string }) => u.message === line), `updates: "${line}"`);
    });
  }

  await t.test('chained bases: two offline edits of one event never conflict with each other', async (t) => {
    const { id, revision: base } = await createEvent(s, token);
    await s.json(`${ONE}/${id}`, offline('PATCH', { title: 'First' }, token, base));
    const afterFirst = await revisionOf(s, token, 'event', id);
    t.equal((await patch(id, { priority: 300 })).status, 200, 'HQ changes another field meanwhile');
    const second = await s.json(`${ONE}/${id}`, offline('PATCH', { title: 'Second' }, token, afterFirst));
    t.equal(second.status, 200);
    t.match(second.body, { title: 'Second', priority: 300 });
    t.same((await historyOf(s, token, 'event', id)).conflicts, [], 'no self-conflict');
    const unchained = await s.json(`${ONE}/${id}`, offline('PATCH', { title: 'Third' }, token, base));
    t.equal(unchained.body.title, 'Second', 'whereas an edit based on the old revision conflicts (held)');
  });

  await t.test('event_details keys merge separately; merged details the schema refuses are held', async (t) => {
    const { id, revision: base } = await createEvent(s, token, { event_details: { a: 1 } });
    t.equal((await patch(id, { event_details: { a: 1, b: 2 } })).status, 200);
    const merged = await s.json(`${ONE}/${id}`, offline('PATCH', { event_details: { a: 5 } }, token, base));
    t.equal(merged.status, 200, JSON.stringify(merged.body));
    t.same(merged.body.event_details, { a: 5, b: 2 }, 'HQ\'s new key b and the laptop\'s change of a both stand');

    const other = await createEvent(s, token, { event_details: { a: 1 } });
    t.equal((await patch(other.id, { event_details: { a: 1, b: 2 } })).status, 200);
    const refused = await s.json(`${ONE}/${other.id}`, offline('PATCH', { event_details: { a: 1, c: 3 }, title: 'Laptop' }, token, other.revision));
    t.equal(refused.status, 200, 'not a 400: the rest applies');
    t.same(refused.body.event_details, { a: 1, b: 2 }, 'three keys would break maxProperties: the laptop\'s c is held');
    t.equal(refused.body.title, 'Laptop', 'its other fields apply');
    const { body } = await s.json(`${CONFLICTS}?record=${other.id}&status=open`, { token });
    t.match(body.conflicts, [{ field: 'event_details.c', mine: 3, theirs: null, status: 'open' }]);
  });

  await t.test('a replay (a history row of this key) writes nothing; a delete with a stale base is refused', async (t) => {
    const { id, revision: base } = await createEvent(s, token);
    const key = 'entry-replayed-once';
    t.equal((await s.json(`${ONE}/${id}`, offline('PATCH', { state: 'active' }, token, base, 'laptop-1', key))).status, 200);
    const after = await revisionOf(s, token, 'event', id);
    // The stored answer is gone (swept): the history still knows the key.
    await s.server.runtime.database.knex('idempotency_keys').where({ key }).delete();
    t.equal((await s.json(`${ONE}/${id}`, offline('PATCH', { state: 'active' }, token, base, 'laptop-1', key))).status, 200);
    t.equal(await revisionOf(s, token, 'event', id), after, 'no new revision');
    const stale = await s.json(`${ONE}/${id}`, offline('DELETE', undefined, token, base));
    t.equal(stale.status, 412, 'the event changed since that base');
    t.equal((await s.json(`${ONE}/${id}`, { token })).status, 200, 'and is still there');
    t.equal((await s.request(`${ONE}/${id}`, offline('DELETE', undefined, token, after))).status, 204, 'a delete based on the current revision goes through');
  });
});
