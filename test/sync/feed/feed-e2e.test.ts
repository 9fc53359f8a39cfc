/**
 * The change feed end to end (both databases): a real `fieldops serve` and the real CLI. First
 * pull; a deletion on the server leaves `events list`; a deactivated type is refused offline; a
 * row deleted or edited in the mirror is found by `verify` and restored by `--repair`; `--reset`
 * keeps the outbox; status and explain; an older server (a proxy answering 404 for the feed)
 * gets the older pull with one warning; a CLI killed with SIGKILL mid-pull leaves a sound mirror
 * and its rerun re-sends at most one page; a pull on the next day (the CLI's clock moved by
 * faketime) costs one request and re-sends nothing, and the day that left the window leaves.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import t from 'tap';
import { dayKeys } from '../../../protocol/scope-keys.js';
import { cliEnv, type CliEnv } from '../../helpers/cli-env.js';
import { spawnCli } from '../../helpers/cli-process.js';
import { dialect } from '../../helpers/database.js';
import { takeHorizonTurn } from '../../helpers/horizon-turn.js';
import { startFeedProxy } from './feed-proxy.js';
import { startRealServer } from './real-server.js';

const PASSWORD = 'Feed-End-To-End-1';
const EVENTS = '/api/v1.0/activity/events';
const FAKETIME_LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

t.test(`the change feed with a real server and CLI (${dialect})`, async (t) => {
  await takeHorizonTurn(t);
  const server = await startRealServer(t, PASSWORD);
  if (!server) return;
  const { url, api } = server;
  await api('POST', '/api/v2.0/activity/eventcategories', { value: 'monitoring', display: 'Monitoring' });
  await api('POST', '/api/v2.0/activity/eventtypes', { value: 'wildlife_sighting', display: 'Wildlife sighting', category: 'monitoring', geometry_type: 'Point' });
  const ids: string[] = [];
  // The day key each event is in (its event time's UTC day: "30 minutes ago" is yesterday just after midnight).
  const dayOf = new Map<string, string>();
  const newEvent = async (minutesAgo: number) => {
    const time = Date.now() - minutesAgo * 60_000;
    const created = await api('POST', EVENTS, { event_type: 'wildlife_sighting', time: new Date(time).toISOString(), location: { latitude: -1.28, longitude: 36.84 }, event_details: {} });
    ids.push(created.id);
    dayOf.set(created.id, dayKeys('ev:day', 1, time)[0]!);
    return created.id as string;
  };
  for (let i = 0; i < 6; i++) await newEvent(30 + i);

  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1' });
  t.equal((await cli.login(url, 'admin', PASSWORD)).code, 0);
  t.equal((await cli.run(['sync'])).code, 0, 'a catalog sync first, as on any laptop');
  const json = async (c: CliEnv, args: string[], code = 0) => {
    const result = await c.json(args);
    t.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
    return result.body;
  };
  const listed = async (c: CliEnv) => ((await json(c, ['events', 'list'])) as Array<{ id: string; origin: string }>).filter((e) => e.origin === 'server').map((e) => e.id).sort();

  await t.test('first pull through the feed, verified', async (t) => {
    const pulled = await json(cli, ['pull']);
    t.match(pulled.feed, { mode: 'feed', checkpoint: 'verified', resets: [] });
    t.match(pulled.pull[1], { resource: 'events', changed: 6 });
    t.same(await listed(cli), [...ids].sort());
    t.ok((await json(cli, ['types', 'list'])).some((x: { value: string }) => x.value === 'wildlife_sighting'), 'the catalogs ride the feed');
    const again = await json(cli, ['pull']);
    t.match(again.feed, { received: 0, pages: 1, checkpoint: 'verified' }, 'nothing new: one page, no changes');
  });

  await t.test('a deletion on the server leaves events list', async (t) => {
    await api('DELETE', `${EVENTS}/${ids[0]}`);
    const pulled = await json(cli, ['sync']);
    t.match(pulled.feed, { deleted: 1, checkpoint: 'verified' });
    t.same(pulled.resources.map((r: { resource: string }) => r.resource), ['trackedby'], 'the catalogs the feed carries skip their conditional GETs');
    t.notOk((await listed(cli)).includes(ids[0]!));
  });

  await t.test('an event type deactivated on the server is refused offline', async (t) => {
    await api('PATCH', '/api/v2.0/activity/eventtypes/wildlife_sighting', { is_active: false });
    await json(cli, ['pull']);
    const refused = await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', '{}']);
    t.equal(refused.code, 1);
    t.match(refused.stderr, /error: the event type "wildlife_sighting" is deactivated on the server[\s\S]*hint: /);
    await api('PATCH', '/api/v2.0/activity/eventtypes/wildlife_sighting', { is_active: true });
    await json(cli, ['pull']);
    t.equal((await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', '{}'])).code, 0, 'active again: recorded');
  });

  await t.test('verify finds a row deleted or edited here; --repair restores it', async (t) => {
    const mirror = new Database(cli.mirror);
    mirror.prepare('delete from pulled_events where id = ?').run(ids[1]);
    mirror.prepare('update event_types set display = ?').run('Edited by hand');
    mirror.close();
    const found = await json(cli, ['verify'], 1);
    t.match(found.scopes, [{ scope: dayOf.get(ids[1]!) }], 'the day key of the deleted event differs');
    t.match(found.tampered, [{ kind: 'event_type', columns: ['display'] }]);
    const repaired = await json(cli, ['verify', '--repair']);
    t.match(repaired, { ok: true, repaired: { scopes: [{ scope: dayOf.get(ids[1]!), missing: 1, repaired: true }], restored_rows: 1 } });
    t.ok((await listed(cli)).includes(ids[1]!), 'the event is back');
    t.match(await json(cli, ['verify']), { ok: true, tampered: [], scopes: [] });
  });

  await t.test('--reset rebuilds the pulled records and keeps the outbox', async (t) => {
    const before = await listed(cli);
    const reset = await json(cli, ['sync', '--reset']);
    t.match(reset.feed.resets, [/--reset/]);
    t.equal(reset.push?.sent, 1, 'sync pushed the queued event first');
    await json(cli, ['events', 'new', '--type', 'wildlife_sighting', '--details', '{}']);
    const again = await json(cli, ['pull', '--reset']);
    t.match(again.feed, { resets: [/--reset/], checkpoint: 'verified' });
    const outbox = await json(cli, ['outbox']);
    t.equal(outbox.counts.pending, 1, 'the queued event is still queued');
    const now = await listed(cli);
    t.ok(before.every((id) => now.includes(id)) && now.length === before.length + 1, 'the same events, and the one pushed');
  });

  await t.test('status and explain: server and local counts per scope', async (t) => {
    const status = await json(cli, ['status']);
    const dayKey = dayOf.get(ids[2]!)!;
    const onThatDay = ids.filter((id) => dayOf.get(id) === dayKey && id !== ids[0]).length;
    const day = status.feed.per_scope.find((s: { scope: string }) => s.scope === dayKey);
    t.ok(day && day.server === day.local && day.local >= onThatDay, JSON.stringify(day));
    const explained = await json(cli, ['sync', '--explain']);
    const key = explained.scopes.find((s: { key: string }) => s.key === dayKey);
    t.equal(key.server, key.local);
    const one = await json(cli, ['sync', '--explain', ids[2]!]);
    t.match(one, { id: ids[2], held: { kind: 'event', scopes: [dayKey] }, server: { served: true } });
    t.equal((await cli.run(['sync', '--scope', 'bogus'])).code, 2, 'a bad --scope is a usage error');
  });

  await t.test('an older server without the feed: the older pull, one warning', async (t) => {
    const proxy = await startFeedProxy(t, url);
    proxy.noFeed = true;
    const old = cliEnv(t, { FIELDOPS_RETRIES: '1' });
    t.equal((await old.login(proxy.url, 'admin', PASSWORD)).code, 0);
    t.equal((await old.run(['sync'])).code, 0);
    const first = await old.run(['pull', '--json']);
    t.equal(first.code, 0, first.stderr);
    t.match(first.stderr, /this server has no change feed; deletions will not reach this laptop/);
    t.equal(JSON.parse(first.stdout).feed.mode, 'fallback');
    const second = await old.run(['pull']);
    t.notMatch(second.stderr, /no change feed/, 'said once per mirror');
    t.ok((await listed(old)).length >= 5, 'the records came through the older pull');
  });

  await t.test('kill -9 mid-pull: a sound mirror; the rerun re-sends at most one page', async (t) => {
    for (let i = 0; i < 14; i++) await newEvent(40 + i);
    const proxy = await startFeedProxy(t, url);
    proxy.limit = 4;
    proxy.holdAfter = 3;
    const killed = cliEnv(t, { FIELDOPS_RETRIES: '1' });
    t.equal((await killed.login(proxy.url, 'admin', PASSWORD)).code, 0);
    t.equal((await killed.run(['sync'])).code, 0);
    const child = spawnCli(['pull'], killed.env);
    await Promise.race([proxy.held, child.exited.then(() => Promise.reject(new Error(`pull ended before it was killed: ${child.stderr()}`)))]);
    child.child.kill('SIGKILL');
    t.equal((await child.exited).signal, 'SIGKILL');
    const mirror = new Database(killed.mirror);
    t.equal(mirror.pragma('integrity_check', { simple: true }), 'ok');
    const held = (mirror.prepare('select count(*) as n from (select distinct kind, id from record_scopes)').get() as { n: number }).n;
    mirror.close();
    t.equal(held, 12, 'three whole pages of four, committed with their cursor');
    proxy.holdAfter = null;
    const rerun = await json(killed, ['pull']);
    const after = new Database(killed.mirror, { readonly: true });
    const total = (after.prepare('select count(*) as n from (select distinct kind, id from record_scopes)').get() as { n: number }).n;
    after.close();
    t.ok(total >= 20, `${total} records held`);
    t.match(rerun.feed, { resets: [], checkpoint: 'verified' });
    t.ok(rerun.feed.received <= total - 12 + 4, `re-sent at most one page (${rerun.feed.received} received of ${total} memberships)`);
  });

  await t.test('the next day (the CLI\'s clock a day ahead): one request, nothing re-sent, the old day leaves', async (t) => {
    if (!fs.existsSync(FAKETIME_LIB)) return void t.pass('skipped', { skip: `${FAKETIME_LIB} is missing (apt-get install faketime): cannot move the CLI's clock` });
    const oldest = await newEvent(29 * 24 * 60);
    await json(cli, ['pull']);
    const held = await listed(cli);
    t.ok(held.includes(oldest), 'an event of the oldest day of the window is held');
    const tomorrow = { env: { LD_PRELOAD: FAKETIME_LIB, FAKETIME: '+1d', FAKETIME_DONT_FAKE_MONOTONIC: '1' } };
    const next = await cli.json(['pull'], tomorrow);
    t.equal(next.code, 0, next.stderr);
    t.match(next.body.feed, { resets: [], pages: 1, received: 0, checkpoint: 'verified', scope_change: { added: { length: 2 }, removed: { length: 2 } } }, 'a day in, a day out: no reset, nothing re-sent');
    t.ok(next.body.wire.requests <= 3, `${next.body.wire.requests} requests`);
    const after = (await cli.json(['events', 'list'], tomorrow)).body as Array<{ id: string; origin: string }>;
    const ids = after.filter((e) => e.origin === 'server').map((e) => e.id).sort();
    t.same(ids, held.filter((id) => id !== oldest), 'the event of the day that left the window is gone; the rest stay');
    const text = await cli.run(['pull'], tomorrow);
    t.match(text.stdout, /pulled 0 changes in 1 page/, 'and on a second pull that day, nothing changed');
    const back = await json(cli, ['pull']);
    t.match(back.feed, { resets: [], received: 1, checkpoint: 'verified' }, 'back on today\'s clock the day returns with its one event');
    t.same(await listed(cli), held);
  });
});
