/**
 * A cursor continued over a changed key set (server/domain/sync/rekey.ts): dropped keys cost
 * nothing, added keys are served as a snapshot of their records only, then the log goes on.
 * Refused (410 sync_scopes_changed): no or wrong `previous_scopes`, another user's cursor, keys
 * added to a cursor still in its first snapshot.
 */
import t from 'tap';
import type { Change } from '../../../protocol/sync.js';
import { dialect } from '../../helpers/server.js';
import { type Mirror, createEvent, feed, pullAll, recount, startFeedServer } from './feed-support.js';

const D1 = '2026-11-18';
const D2 = '2026-11-19';
const D3 = '2026-11-20';
const at = (day: string) => `${day}T10:00:00+00:00`;
const ids = (changes: readonly Change[]) => [...new Set(changes.map((c) => c.id))].sort();

/** What the laptop does with a page's `granted`: rows no granted key justifies go. */
function dropUnjustified(mirror: Mirror, granted: readonly string[]): void {
  for (const [key, change] of mirror) {
    const kept = change.scopes.filter((scope) => granted.includes(scope));
    if (kept.length === 0) mirror.delete(key);
    else mirror.set(key, { ...change, scopes: kept });
  }
}

t.test(`sync feed: a changed key set continues the cursor (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  const a = (await createEvent(s, token, { time: at(D1) })).body.id;
  const b = (await createEvent(s, token, { time: at(D2) })).body.id;
  const c = (await createEvent(s, token, { event_type: 'intrusion', time: at(D2) })).body.id;
  const d = (await createEvent(s, token, { time: at(D3) })).body.id;
  const e = (await createEvent(s, token, { event_type: 'intrusion', time: at(D3) })).body.id;
  const K1 = [`ev:day:${D1}`, `ev:day:${D2}`];
  const K2 = [`ev:day:${D2}`, `ev:day:${D3}`, 'ev:cat:security'];

  const first = await pullAll(s, token, K1);
  t.same(ids(first.received), [a, b, c].sort(), 'K1 holds the events of D1 and D2');
  const f = (await createEvent(s, token, { time: at(D2) })).body.id;

  await t.test('without previous_scopes, or with the wrong ones: 410', async (t) => {
    const none = await feed(s, token, { cursor: first.cursor, scopes: K2 });
    t.equal(none.status, 410);
    t.equal(none.body.sync[0].code, 'sync_scopes_changed');
    const wrong = await feed(s, token, { cursor: first.cursor, scopes: K2, previous_scopes: [`ev:day:${D1}`] });
    t.equal(wrong.status, 410, 'previous_scopes that are not the set the cursor was made for');
    t.equal(wrong.body.sync[0].code, 'sync_scopes_changed');
    const bad = await feed(s, token, { cursor: first.cursor, scopes: K2, previous_scopes: ['su:*'] });
    t.equal(bad.status, 400, 'a pattern is not a granted key');
    t.ok(bad.body.previous_scopes, 'the issue is on previous_scopes');
    const many = await feed(s, token, { cursor: first.cursor, scopes: K2, previous_scopes: Array.from({ length: 401 }, () => 'ev:all') });
    t.equal(many.status, 400, 'at most MAX_SCOPE_KEYS previous keys');
  });

  await t.test('another user\'s cursor: 410 even with the same keys', async (t) => {
    await s.server.runtime.admin.createUser({ tenant: 'default', username: 'feed.rekey', password: 'Feed-Rekey-Pass-1', permissions: ['view_event'] });
    const other = (await s.login('feed.rekey', 'Feed-Rekey-Pass-1')).access_token;
    const stolen = await feed(s, other, { cursor: first.cursor, scopes: K1, previous_scopes: first.last.granted });
    t.equal(stolen.status, 410);
    t.equal(stolen.body.sync[0].code, 'sync_scopes_changed');
  });

  await t.test('K1 − {D1} ∪ {D3, security}: only the added keys\' records and the new change arrive', async (t) => {
    for (const limit of [undefined, 1]) {
      const mirror: Mirror = new Map(first.mirror);
      const next = await pullAll(s, token, K2, { cursor: first.cursor, mirror, previous: first.last.granted, limit });
      t.same(next.last.granted, [...K2].sort());
      t.same(ids(next.received), [c, d, e, f].sort(), `limit ${limit ?? 'default'}: the snapshot of D3 and security (c is in security), and f from the log; neither a nor b again`);
      t.same(next.received.find((x) => x.id === c)!.scopes, ['ev:cat:security', `ev:day:${D2}`], 'a snapshot put lists every granted key the record is in');
      dropUnjustified(mirror, next.last.granted);
      t.same([...mirror.values()].map((x) => x.id).sort(), [b, c, d, e, f].sort(), 'a (only in D1) is dropped by the laptop');
      t.ok(next.last.checkpoint, 'a checkpoint');
      for (const sum of next.last.checkpoint!.scopes) t.same({ count: sum.count, checksum: sum.checksum }, recount(mirror, sum.key), `${sum.key} verifies`);
      const again = await feed(s, token, { cursor: next.cursor, scopes: K2 });
      t.equal(again.status, 200, 'the new cursor is made for K2');
      t.same(again.body.changes, [], 'nothing new');
    }
  });

  await t.test('keys added again during a partial snapshot: it starts over with them', async (t) => {
    const partial = await feed(s, token, { cursor: first.cursor, scopes: K2, previous_scopes: first.last.granted, limit: 1 });
    t.equal(partial.status, 200);
    t.equal(partial.body.has_more, true, 'a partial snapshot under way');
    const K3 = [...K2, `ev:day:${D1}`];
    const rest = await pullAll(s, token, K3, { cursor: partial.body.cursor, previous: partial.body.granted, limit: 2 });
    t.same(ids(rest.received), [a, c, d, e, f].sort(), 'the added D1 (a) with the rest of D3 and security, then f from the log');
    const mirror: Mirror = new Map(first.mirror);
    for (const change of [...partial.body.changes, ...rest.received]) mirror.set(`${change.kind}:${change.id}`, change);
    t.ok(rest.last.checkpoint);
    for (const sum of rest.last.checkpoint!.scopes) t.same({ count: sum.count, checksum: sum.checksum }, recount(mirror, sum.key), `${sum.key} verifies`);
  });

  await t.test('only dropped keys: nothing is sent', async (t) => {
    const page = await feed(s, token, { cursor: first.cursor, scopes: [`ev:day:${D2}`], previous_scopes: first.last.granted });
    t.equal(page.status, 200);
    t.same(ids(page.body.changes), [f], 'only the change after the cursor');
    t.same(page.body.granted, [`ev:day:${D2}`]);
  });

  await t.test('a cursor still in its first snapshot: dropped keys go on, added keys are 410', async (t) => {
    const partial = await feed(s, token, { cursor: null, scopes: K1, limit: 1 });
    t.equal(partial.status, 200);
    t.equal(partial.body.has_more, true);
    const added = await feed(s, token, { cursor: partial.body.cursor, scopes: [...K1, `ev:day:${D3}`], previous_scopes: partial.body.granted });
    t.equal(added.status, 410);
    t.equal(added.body.sync[0].code, 'sync_scopes_changed');
    const rest = await pullAll(s, token, [`ev:day:${D2}`], { cursor: partial.body.cursor, previous: partial.body.granted });
    const all = [...partial.body.changes, ...rest.received].map((x) => x.id);
    t.ok([b, c, f].every((id) => all.includes(id)), 'the snapshot goes on over the keys still granted');
  });

  await t.test('a subject group newly visible: served without a new snapshot of the rest', async (t) => {
    const { admin, services, store } = s.server.runtime;
    await admin.createUser({ tenant: 'default', username: 'feed.group', password: 'Feed-Group-Pass-1', permissions: ['view_event', 'view_subject'] });
    const viewer = (await s.login('feed.group', 'Feed-Group-Pass-1')).access_token;
    await services.subjects.create(fx.tenantId, { name: 'Ranger', groups: [{ name: 'Team R', patrolLeaders: true }] });
    const scopes = ['ev:all', 'su:*'];
    const before = await pullAll(s, viewer, scopes);
    t.same(before.last.granted, ['ev:all', 'su:nogroup']);
    await services.subjects.allowUserToViewGroup(fx.tenantId, (await store.repos.users.findByUsername('feed.group'))!.id, 'Team R');
    const after = await pullAll(s, viewer, scopes, { cursor: before.cursor, mirror: before.mirror, previous: before.last.granted });
    t.equal(after.last.granted.length, 3, 'the group\'s key is granted now');
    t.same(after.received.map((x) => x.kind), ['subject'], 'only the group\'s subject arrives');
    t.ok(after.last.checkpoint);
    for (const sum of after.last.checkpoint!.scopes) t.same({ count: sum.count, checksum: sum.checksum }, recount(after.mirror, sum.key), `${sum.key} verifies`);
  });
});
