/**
 * Offline changes of pulled events (both databases), based on the revision pulled and sent in a
 * batch: the server merges each with what changed there since. The same field changed on both
 * sides is a conflict that keeps both values (the entry is `conflict`, its field in
 * outbox_conflicts), decided with `outbox resolve --mine` or `--theirs` (queued, sent by the next
 * push); a change of another field is merged, never a conflict.
 */
import t from 'tap';
import { jsonBody, startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { startWireProxy } from '../helpers/wire-proxy.js';
import { EVENTS, outboxOf, syncedCli } from '../sync/offline-fixtures.js';

const PUSH = '/api/fieldops/v1/sync/push';

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
  t.equal(b.code, 0, b.stderr);
  // Meanwhile, in the office:
  const patched = await s.json(`${EVENTS}/${contested}`, { ...jsonBody({ state: 'active', priority: 300 }, { token }), method: 'PATCH' });
  t.equal(patched.status, 200);

  wire.reset();
  const push = await cli.json(['push']);
  t.equal(push.code, 1);
  t.equal(push.body.sent, 1);
  t.match(push.body.conflicts, [{ id: b.body.id, reason: /conflict on state/ }]);
  const batches = wire.exchanges.filter((e) => e.path === PUSH);
  t.same(batches.map((e) => e.status), [200], 'both in one batch');
  t.notOk(wire.exchanges.some((e) => e.method === 'PATCH'), 'no one-by-one update');
  t.equal((await s.json(`${EVENTS}/${calm}`, { token })).body.state, 'resolved');
  t.match((await s.json(`${EVENTS}/${contested}`, { token })).body, { state: 'active', priority: 300 }, 'the office\'s state held, pending review');
  t.equal((await outboxOf(cli)).entries.find((e) => e.id === b.body.id)?.status, 'conflict');

  const bad = await cli.run(['outbox', 'resolve', b.body.id]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /hint: pass exactly one of --mine or --theirs/);
  const mine = await cli.json(['outbox', 'resolve', b.body.id, '--mine']);
  t.equal(mine.code, 0, mine.stderr);
  const again = await cli.json(['push']);
  t.equal(again.code, 0, again.stderr);
  t.match((await s.json(`${EVENTS}/${contested}`, { token })).body, { state: 'resolved', priority: 300 }, 'mine applied over theirs, their other change kept');
  t.equal((await outboxOf(cli)).entries.find((e) => e.id === b.body.id)?.status, 'sent', 'every field settled: sent');

  // Another field changed in the office: merged, not a conflict.
  const c = await cli.json(['events', 'state', contested, 'new']);
  t.equal(c.code, 0, c.stderr);
  await s.json(`${EVENTS}/${contested}`, { ...jsonBody({ priority: 200 }, { token }), method: 'PATCH' });
  const merged = await cli.json(['push']);
  t.equal(merged.code, 0, merged.stderr);
  t.match(merged.body, { sent: 1, merged: 1, conflicts: [] });
  t.match((await s.json(`${EVENTS}/${contested}`, { token })).body, { state: 'new', priority: 200 }, 'both changes kept');
});
