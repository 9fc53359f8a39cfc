/**
 * Offline changes of pulled events (both databases): sent with If-Match on the version pulled;
 * a change made on the server meanwhile is a 412, kept as a conflict with both versions, decided
 * with `outbox resolve --theirs` or `--mine`.
 */
import t from 'tap';
import { jsonBody, startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { startWireProxy } from '../helpers/wire-proxy.js';
import { EVENTS, syncedCli } from '../sync/offline-fixtures.js';

t.test('event state changed offline, with and without a conflict', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const wire = await startWireProxy(t, s.url);
  const cli = await syncedCli(t, wire.url);
  const create = async (notes: string) => {
    const created = await s.json(EVENTS, jsonBody({ event_type: 'wildlife_sighting', time: new Date().toISOString(), event_details: { notes } }, { token }));
    t.equal(created.status, 201);
    return created.body.id as string;
  };
  const calm = await create('calm');
  const contested = await create('contested');
  const pull = await cli.json(['pull']);
  t.equal(pull.code, 0, pull.stderr);
  t.match(pull.body.pull[1], { resource: 'events', changed: 2 });
  const listed = await cli.json(['events', 'list']);
  t.same(listed.body.map((e: any) => e.id).sort(), [calm, contested].sort());

  const a = await cli.json(['events', 'state', calm.slice(0, 8), 'resolved']);
  t.equal(a.code, 0, a.stderr);
  const b = await cli.json(['events', 'state', contested, 'resolved']);
  // Meanwhile, in the office:
  const patched = await s.json(`${EVENTS}/${contested}`, { ...jsonBody({ state: 'active', priority: 300 }, { token }), method: 'PATCH' });
  t.equal(patched.status, 200);

  wire.reset();
  const push = await cli.json(['push']);
  t.equal(push.code, 1);
  t.equal(push.body.sent, 1);
  t.same(push.body.conflicts.map((c: any) => c.id), [b.body.id]);
  const patches = wire.exchanges.filter((e) => e.method === 'PATCH');
  t.ok(patches.every((e) => typeof e.requestHeaders['if-match'] === 'string'), 'both sent with If-Match');
  t.same(patches.map((e) => e.status).sort(), [200, 412]);
  t.equal((await s.json(`${EVENTS}/${calm}`, { token })).body.state, 'resolved');
  t.equal((await s.json(`${EVENTS}/${contested}`, { token })).body.state, 'active', 'the conflicted change was not applied');

  const shown = await cli.json(['outbox', 'show', b.body.id]);
  t.match(shown.body, { status: 'conflict', body: { state: 'resolved' }, theirs: { record: { state: 'active', priority: 300 } } });
  const bad = await cli.run(['outbox', 'resolve', b.body.id]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /hint: pass exactly one of --mine or --theirs/);
  t.equal((await cli.json(['outbox', 'resolve', b.body.id, '--mine'])).body.status, 'pending');
  const again = await cli.json(['push']);
  t.equal(again.code, 0, again.stderr);
  const after = (await s.json(`${EVENTS}/${contested}`, { token })).body;
  t.match(after, { state: 'resolved', priority: 300 }, 'mine applied over theirs, their other change kept');

  const c = await cli.json(['events', 'state', contested, 'new']);
  await s.json(`${EVENTS}/${contested}`, { ...jsonBody({ priority: 200 }, { token }), method: 'PATCH' });
  t.equal((await cli.json(['push'])).body.conflicts.length, 1, 'a change based on a stale version: 412 again');
  t.equal((await cli.json(['outbox', 'resolve', c.body.id, '--theirs'])).body.status, 'dropped');
  t.equal((await s.json(`${EVENTS}/${contested}`, { token })).body.state, 'resolved', 'theirs kept');
});
