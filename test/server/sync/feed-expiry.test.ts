import t from 'tap';
import { send } from '../../helpers/catalog.js';
import { ManualClock, dialect } from '../../helpers/server.js';
import { takeHorizonTurn } from '../../helpers/horizon-turn.js';
import { E, FEED, createEvent, createPatrol, feed, pullAll, startFeedServer } from './feed-support.js';

const DAY = 86_400_000;

t.test(`sync feed: 410 past the retention, 410 when grants change, 503 while preparing (${dialect})`, async (t) => {
  // Pruning stops at PostgreSQL's horizon (the cluster's): not while a test holds it on purpose.
  await takeHorizonTurn(t);
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
  const fx = await startFeedServer(t, { clock });
  if (!fx) return;
  const { s, tenantId } = fx;
  let { token } = fx;
  const knex = s.server.runtime.database.knex;
  await createEvent(s, token);
  const early = await pullAll(s, token, ['ev:all']);

  await t.test('a cursor older than the retention is 410 sync_cursor_expired; null starts again', async (t) => {
    clock.advance(1000);
    const late = (await createEvent(s, token)).body.id;
    clock.advance(91 * DAY);
    token = (await s.login()).access_token;
    const fresh = (await createEvent(s, token)).body.id;
    // Another test's write in flight holds the horizon for a moment: prune again until past it.
    let pruned = 0;
    for (let attempt = 0; attempt < 50 && pruned < 2; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      pruned += await s.server.runtime.syncRetention.pruneOnce();
    }
    t.ok(pruned >= 2, `rows older than 90 days went (${pruned})`);
    t.equal(Number((await knex('sync_changes').where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n), 1, 'only the recent row is left');
    const expired = await feed(s, token, { cursor: early.cursor, scopes: ['ev:all'] });
    t.equal(expired.status, 410);
    t.equal(expired.body.sync[0].code, 'sync_cursor_expired');
    const again = await pullAll(s, token, ['ev:all']);
    t.ok(again.mirror.has(`event:${late}`) && again.mirror.has(`event:${fresh}`), 'a new snapshot holds every record');
    t.ok(again.last.checkpoint, 'and verifies');
    t.equal(again.last.checkpoint!.scopes[0]!.count, 3);
    const after = await feed(s, token, { cursor: again.cursor, scopes: ['ev:all'] });
    t.equal(after.status, 200, 'a cursor past the pruned mark is served');
  });

  await t.test('a revoked permission is 410 sync_scopes_changed', async (t) => {
    const { admin } = s.server.runtime;
    const user = await admin.createUser({ tenant: 'default', username: 'feed.field', password: 'Feed-Field-Pass-2', permissions: ['view_event', 'view_patrol'] });
    const field = (await s.login('feed.field', 'Feed-Field-Pass-2')).access_token;
    const pulled = await pullAll(s, field, ['ev:all', 'pa:all']);
    t.same(pulled.last.granted, ['ev:all', 'pa:all']);
    await knex('user_permissions').where({ user_id: user.id, codename: 'view_event' }).delete();
    const changed = await feed(s, field, { cursor: pulled.cursor, scopes: ['ev:all', 'pa:all'] });
    t.equal(changed.status, 410);
    t.equal(changed.body.sync[0].code, 'sync_scopes_changed');
    const restart = await feed(s, field, { cursor: null, scopes: ['ev:all', 'pa:all'] });
    t.equal(restart.status, 200);
    t.same(restart.body.denied, [{ key: 'ev:all', reason: 'needs view_event' }]);
    t.ok(restart.body.changes.every((c: { kind: string }) => c.kind === 'patrol'), 'no event once view_event is gone');
  });

  await t.test('a tenant whose backfill is not done is 503 sync_preparing with Retry-After', async (t) => {
    await knex('sync_tenant_state').where({ tenant_id: tenantId }).update({ backfill: 'pending' });
    const waiting = await feed(s, token, { cursor: null, scopes: ['ev:all'] });
    await knex('sync_tenant_state').where({ tenant_id: tenantId }).update({ backfill: 'done' });
    t.equal(waiting.status, 503);
    t.equal(waiting.body.sync[0].code, 'sync_preparing');
    t.ok(Number(waiting.headers.get('retry-after')) > 0);
  });
});

t.test(`sync feed: tenants never see each other; ranges, records, explain (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  const { admin } = s.server.runtime;
  await admin.createTenant('feed-other');
  await admin.createUser({ tenant: 'feed-other', username: 'feed.other', password: 'Feed-Other-Pass-3', superuser: true });
  const other = (await s.login('feed.other', 'Feed-Other-Pass-3')).access_token;
  await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting', default_priority: 100, default_state: 'active', schema: { json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} }, ui: { fields: {}, sections: {}, order: [], headers: {} } } }, other));
  const theirs = (await createEvent(s, other)).body.id;
  const ours: string[] = [];
  for (let i = 0; i < 5; i++) ours.push((await createEvent(s, token)).body.id);
  await createPatrol(s, token);

  const mine = await pullAll(s, token, ['ev:all', 'pa:all', 'cat:*']);
  const yours = await pullAll(s, other, ['ev:all', 'pa:all', 'cat:*']);
  t.notOk(mine.mirror.has(`event:${theirs}`), 'another tenant\'s event never appears');
  t.same([...yours.mirror.values()].filter((c) => c.kind === 'event').map((c) => c.id), [theirs], 'nor ours in theirs');
  t.equal([...yours.mirror.values()].filter((c) => c.kind === 'patrol').length, 0);

  await t.test('many subjects in one page, each as its detail shows it', async (t) => {
    const made: string[] = [];
    for (let i = 0; i < 25; i++) made.push((await s.server.runtime.services.subjects.create(fx.tenantId, { name: `Ranger ${i}`, groups: i % 2 ? [{ name: 'Odd' }] : [] })).id);
    const pulled = await pullAll(s, token, ['su:*']);
    const subjects = [...pulled.mirror.values()].filter((c) => c.kind === 'subject');
    t.same(subjects.map((c) => c.id).sort(), [...made].sort());
    const one = subjects.find((c) => c.id === made[3])!;
    t.same(one.record, (await s.json(`/api/v1.0/subject/${made[3]}`, { token })).body.data);
    t.ok(one.scopes[0]!.startsWith('su:group:'), 'in its group\'s key');
  });

  await t.test('ranges: keyset over one granted key', async (t) => {
    const seen: Array<{ kind: string; id: string; version: number }> = [];
    let after: { kind: string; id: string } | null = null;
    for (;;) {
      const page: { status: number; body: any } = await s.json('/api/fieldops/v1/sync/ranges', send('POST', { scope: 'ev:all', after, limit: 2 }, token));
      t.equal(page.status, 200);
      seen.push(...page.body.entries);
      if (!page.body.has_more) break;
      after = { kind: page.body.entries.at(-1).kind, id: page.body.entries.at(-1).id };
    }
    t.same(seen.map((e) => e.id), [...ours].sort(), 'every event once, in id order');
    t.ok(seen.every((e) => e.version === mine.mirror.get(`event:${e.id}`)!.version), 'at the versions the feed served');
    t.equal((await s.json('/api/fieldops/v1/sync/ranges', send('POST', { scope: 'ev:*', after: null }, token))).status, 400);
  });

  await t.test('records: current ones as put, gone ones as delete', async (t) => {
    t.equal((await s.json(`${E}/${ours[0]}`, { method: 'DELETE', token })).status, 204);
    const missing = '00000000-0000-4000-8000-000000000001';
    const page = await s.json('/api/fieldops/v1/sync/records', send('POST', { kind: 'event', ids: [ours[1], ours[0], missing, theirs] }, token));
    t.equal(page.status, 200);
    const byId = new Map(page.body.changes.map((c: { id: string }) => [c.id, c]));
    t.match(byId.get(ours[1]), { op: 'put', scopes: ['ev:all'], record: { id: ours[1] } });
    t.ok((byId.get(ours[1]) as { etag: string }).etag);
    for (const id of [ours[0], missing, theirs]) t.match(byId.get(id), { op: 'delete', record: null }, `${id} is delete`);
    t.equal((await s.json('/api/fieldops/v1/sync/records', send('POST', { kind: 'event', ids: ['nope'] }, token))).status, 400);
  });

  await t.test('explain: the server count of a key, and why a record is in or out', async (t) => {
    const scope = await s.json('/api/fieldops/v1/sync/explain?scope=ev:all', { token });
    t.equal(scope.status, 200);
    t.match(scope.body.scope, { key: 'ev:all', granted: true, count: 4 });
    const record = await s.json(`/api/fieldops/v1/sync/explain?id=${ours[1]}&kind=event`, { token });
    t.match(record.body.record, { kind: 'event', id: ours[1], served: true });
    t.ok(record.body.record.keys.some((k: { key: string; granted: boolean }) => k.key === 'ev:all' && k.granted));
    const foreign = await s.json(`/api/fieldops/v1/sync/explain?id=${theirs}&kind=event`, { token });
    t.match(foreign.body.record, { served: false, version: null, keys: [] }, 'another tenant\'s record is unknown');
    t.equal((await s.json('/api/fieldops/v1/sync/explain', { token })).status, 400);
  });
  void FEED;
});
