/**
 * Field-level merge end to end (issue 26 §3, plan §10), both databases: a real server and the
 * real `fieldops` binary. Disjoint fields merge and the history names the laptop (its mirror's
 * client id); the same field is a conflict kept on both sides, settled with --mine or --theirs;
 * chained offline edits never conflict with themselves; a patrol ended offline merges with a
 * title changed at headquarters; a lost answer is replayed, written once; the tenant policies
 * settle a conflict at once (`sent (settled …)`) and keep it on the server.
 */
import http from 'node:http';
import Database from 'better-sqlite3';
import t from 'tap';
import type { Test } from 'tap';
import { send } from '../helpers/catalog.js';
import { ManualClock, dialect, jsonBody, startTestServer, type TestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { CONFLICTS, history } from '../server/merge/merge-support.js';
import { listenForTest } from '../helpers/test-listener.js';
import { EVENTS, outboxOf, syncedCli } from './offline-fixtures.js';

const P = '/api/v1.0/activity/patrols';
const PUSH = '/api/fieldops/v1/sync/push';

/** Passes every exchange on, except that `drop` may cut the client's connection once the server answered. */
async function startDroppingProxy(t: Test, target: string): Promise<{ url: string; drop: ((path: string) => boolean) | null }> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const proxy: { url: string; drop: ((path: string) => boolean) | null } = { url: '', drop: null };
  const server = http.createServer((request, response) => {
    const path = request.url ?? '';
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path, headers: request.headers, agent }, async (answer) => {
      const chunks: Buffer[] = [];
      for await (const chunk of answer) chunks.push(chunk as Buffer);
      if (proxy.drop?.(path)) return void response.socket?.destroy();
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      response.end(Buffer.concat(chunks));
    });
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  proxy.url = await listenForTest(t, server, agent);
  return proxy;
}

function clientIdOf(mirror: string): string {
  const db = new Database(mirror, { readonly: true });
  try {
    return (db.prepare(`select value from mirror_identity where key = 'client_id'`).get() as { value: string }).value;
  } finally {
    db.close();
  }
}

async function changesOf(s: TestServer, kind: string, id: string): Promise<number> {
  const row = await s.server.runtime.database.knex('sync_changes').where({ kind, record_id: id }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

// About 50 runs of the real binary: over tap's 180 s on PostgreSQL.
t.setTimeout(600_000);

t.test(`merge end to end (${dialect})`, async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 10, 0, 0));
  const s = await startTestServer(t, { clock, env: { FIELDOPS_PATROL_SWEEP_SECONDS: '0' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const proxy = await startDroppingProxy(t, s.url);
  const cli = await syncedCli(t, proxy.url);
  const device = clientIdOf(cli.mirror);
  const ok = async (args: string[]) => {
    const result = await cli.json(args);
    t.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.body;
  };
  const create = async (title: string) => {
    const created = await s.json(EVENTS, jsonBody({ event_type: 'wildlife_sighting', title, time: new Date(clock.current).toISOString(), event_details: { notes: title } }, { token }));
    t.equal(created.status, 201);
    return created.body.id as string;
  };
  const hq = async (id: string, body: Record<string, unknown>) => {
    clock.advance(1000);
    const patched = await s.json(`${EVENTS}/${id}`, { ...jsonBody(body, { token }), method: 'PATCH' });
    t.equal(patched.status, 200, JSON.stringify(patched.body));
  };
  const event = async (id: string) => (await s.json(`${EVENTS}/${id}`, { token })).body;
  const historyOf = async (kind: string, id: string) => (await s.json(history(kind, id), { token })).body;
  const pull = async () => {
    clock.advance(1000);
    await ok(['pull']);
  };

  await t.test('(a) state offline, title at headquarters: merged, the history names the device', async (t) => {
    const id = await create('Lions');
    await pull();
    const change = await ok(['events', 'state', id, 'resolved']);
    await hq(id, { title: 'Lions at the river' });
    const push = await ok(['push']);
    t.match(push, { sent: 1, merged: 1, conflicts: [], settled: [] });
    t.match(await event(id), { state: 'resolved', title: 'Lions at the river' }, 'both changes on the server');
    const h = await historyOf('event', id);
    t.match(h.revisions[0], { device, merged: ['title'], fields: { state: [String, 'resolved'] } }, 'the laptop\'s revision, and what it merged');
    t.same(h.conflicts, []);
    t.equal((await outboxOf(cli)).entries.find((e) => e.id === change.id)?.status, 'sent');
  });

  await t.test('(b) the same field on both sides, hold: shown, listed, settled with mine and with theirs', async (t) => {
    const mineId = await create('Mine wins');
    const theirsId = await create('Theirs wins');
    await pull();
    const mine = await ok(['events', 'state', mineId, 'resolved']);
    const theirs = await ok(['events', 'state', theirsId, 'resolved']);
    await hq(mineId, { state: 'active' });
    await hq(theirsId, { state: 'active' });
    const push = await cli.json(['push']);
    t.equal(push.code, 1, 'conflicts: exit 1');
    t.same(push.body.conflicts.map((c: any) => c.id).sort(), [mine.id, theirs.id].sort());

    const shown = await cli.run(['outbox']);
    t.equal(shown.code, 0, shown.stderr);
    t.match(shown.stdout, /^ {2}state {2}base=new {2}mine=resolved {2}theirs=active {2}\(open\)$/m);
    const open = (await s.json(`${CONFLICTS}?status=open&record=${mineId}`, { token })).body.conflicts;
    t.match(open, [{ field: 'state', base: 'new', mine: 'resolved', theirs: 'active', status: 'open', device }], 'on the server, with both values');
    const h = await historyOf('event', mineId);
    t.match(h.conflicts, [{ id: open[0].id }], 'and in the record\'s history');
    t.match(await event(mineId), { state: 'active' }, 'held: the server keeps its value');

    await ok(['outbox', 'resolve', mine.id, '--mine']);
    await ok(['outbox', 'resolve', theirs.id, '--field', 'state', '--theirs']);
    const settle = await ok(['push']);
    t.match(settle, { conflicts: [], rejected: [] });
    t.equal((await event(mineId)).state, 'resolved', 'mine: the server takes the laptop\'s value');
    t.equal((await event(theirsId)).state, 'active', 'theirs: the server keeps its own');
    t.same((await s.json(`${CONFLICTS}?status=open&record=${mineId}`, { token })).body.conflicts, [], 'settled on the server');
    t.same((await s.json(`${CONFLICTS}?status=open&record=${theirsId}`, { token })).body.conflicts, []);
    const entries = (await outboxOf(cli)).entries;
    t.equal(entries.find((e) => e.id === mine.id)?.status, 'sent');
    t.equal(entries.find((e) => e.id === theirs.id)?.status, 'sent');
    t.equal((await outboxOf(cli)).counts.conflict, 0);
  });

  await t.test('(c) two offline edits of a pulled event and of an event created offline: in order, no self-conflict', async (t) => {
    const pulledId = await create('Twice');
    await pull();
    await ok(['events', 'state', pulledId, 'active']);
    await ok(['events', 'state', pulledId, 'resolved']);
    const made = await ok(['events', 'new', '--type', 'wildlife_sighting', '--details', JSON.stringify({ species: 'lion' })]);
    await ok(['events', 'state', made.id, 'active']);
    await ok(['events', 'state', made.id, 'resolved']);
    const push = await ok(['push']);
    t.match(push, { total: 5, sent: 5, conflicts: [], rejected: [], settled: [] });
    t.equal((await event(pulledId)).state, 'resolved', 'the second edit last');
    t.equal((await event(made.id)).state, 'resolved');
    const states = (h: any) => h.revisions.map((r: any) => r.fields?.state?.[1]).filter(Boolean).reverse();
    t.same(states(await historyOf('event', pulledId)), ['active', 'resolved'], 'both applied, in order');
    t.same((await historyOf('event', pulledId)).conflicts, []);
    t.same((await historyOf('event', made.id)).conflicts, []);
    t.same((await s.json(`${CONFLICTS}?record=${made.id}`, { token })).body.conflicts, []);
  });

  await t.test('(d) a patrol ended offline whose title headquarters changed: merged', async (t) => {
    const created = await s.json(P, send('POST', { title: 'Fence', patrol_segments: [{ patrol_type: 'fence_patrol', time_range: { start_time: new Date(clock.current - 3600_000).toISOString() } }] }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    await pull();
    const end = await ok(['patrols', 'end', id]);
    clock.advance(1000);
    t.equal((await s.json(`${P}/${id}`, send('PATCH', { title: 'Fence (HQ)' }, token))).status, 200);
    const push = await ok(['push']);
    t.match(push, { sent: 1, merged: 1, conflicts: [] });
    const after = (await s.json(`${P}/${id}`, { token })).body;
    t.equal(after.title, 'Fence (HQ)');
    t.ok(after.patrol_segments[0].time_range.end_time, 'ended');
    t.match((await historyOf('patrol', id)).revisions[0], { device, merged: ['title'] });
    t.equal((await outboxOf(cli)).entries.find((e) => e.id === end.id)?.status, 'sent');
  });

  await t.test('(e) a lost answer: replayed, one history row, no conflict', async (t) => {
    const id = await create('Lost');
    await pull();
    await ok(['events', 'state', id, 'resolved']);
    const before = await changesOf(s, 'event', id);
    const revisions = (await historyOf('event', id)).revisions.length;
    let batches = 0;
    proxy.drop = (path) => path === PUSH && ++batches === 1;
    const cut = await cli.json(['push'], { env: { FIELDOPS_RETRIES: '1' } });
    proxy.drop = null;
    t.equal(cut.code, 1, 'the cut batch stops the push');
    const again = await ok(['push']);
    t.match(again, { sent: 1, conflicts: [], rejected: [] });
    t.equal(await changesOf(s, 'event', id), before + 1, 'written once');
    t.equal((await historyOf('event', id)).revisions.length, revisions + 1, 'one history row');
    t.same((await historyOf('event', id)).conflicts, []);
    t.equal((await event(id)).state, 'resolved');
  });

  for (const [policy, words, winner] of [['server_wins', 'server wins', 'active'], ['last_writer_wins', 'last writer wins', 'resolved']] as const) {
    await t.test(`(f) ${policy}: sent (settled …), the conflict kept on the server`, async (t) => {
      await s.server.runtime.admin.setConflictPolicy('default', policy);
      t.teardown(() => s.server.runtime.admin.setConflictPolicy('default', 'hold'));
      const id = await create(policy);
      await pull();
      const change = await ok(['events', 'state', id, 'resolved']);
      await hq(id, { state: 'active' });
      clock.advance(1000);
      const push = await cli.run(['push']);
      t.equal(push.code, 0, push.stderr);
      t.match(push.stdout, new RegExp(`^sent ${change.id} event\\.update: settled: ${words} \\(state\\)$`, 'm'));
      t.equal((await event(id)).state, winner);
      const kept = (await s.json(`${CONFLICTS}?record=${id}`, { token })).body.conflicts;
      t.match(kept, [{ field: 'state', base: 'new', mine: 'resolved', theirs: 'active', status: 'settled', policy }], 'kept, settled by the policy');
      t.equal((await outboxOf(cli)).entries.find((e) => e.id === change.id)?.status, 'sent');
      const shown = await ok(['outbox', 'show', change.id]);
      t.match(shown.conflicts, [{ field: 'state', mine: 'resolved', theirs: 'active', status: 'settled', policy, settled_by: 'policy' }], 'the laptop keeps both values too');
    });
  }
});
