/**
 * The sync engine in-process (real server, real undici transport, real SQLite mirror): paged
 * resources with a validator per page, and a mirror switching servers.
 */
import t from 'tap';
import { authorizedTransport, tokenSession } from '../../sync/auth/session.js';
import { countingTransport } from '../../sync/counting.js';
import { runSync, type SyncEvent } from '../../sync/engine/run-sync.js';
import { RESOURCE_SPECS, type ResourceSpec } from '../../sync/engine/resources.js';
import { KnexMirrorStore } from '../../sync/mirror/knex-store.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { createUndiciTransport } from '../../sync/transport.js';
import { send } from '../helpers/catalog.js';
import { startTestServer } from '../helpers/server.js';
import { CHOICES } from '../helpers/sync-seed.js';

const choicesSpec = RESOURCE_SPECS.find((s) => s.name === 'choices')!;
// Two choices a page, so that five choices take three pages.
const pagedChoices: ResourceSpec = { ...choicesSpec, path: '/api/v2.0/choices?include_inactive=true&page_size=2' };

t.test('paged choices: a validator per page, one 304 per page when nothing changed', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  for (const [i, value] of ['a', 'b', 'c', 'd', 'e'].entries()) {
    t.equal((await s.json(CHOICES, send('POST', { field: 'letters', value, display: value.toUpperCase(), ordernum: i }, token))).status, 201);
  }
  const undici = createUndiciTransport();
  t.teardown(() => undici.close());
  const wire = countingTransport(undici);
  const transport = authorizedTransport(wire.transport, tokenSession(s.url, token));
  const store = new KnexMirrorStore((await openMirrorDatabase(':memory:', { create: true }))!);
  t.teardown(() => store.close());
  const sync = (events?: SyncEvent[]) => runSync({ transport, server: s.url, username: 'admin', store, specs: [pagedChoices], onEvent: (e) => events?.push(e) });

  const first = await sync();
  t.same(wire.log.exchanges.map((e) => [new URL(e.url).searchParams.get('page'), e.status]), [['1', 200], ['2', 200], ['3', 200]]);
  t.equal(first.resources[0]!.items, 5);
  const checkpoint = (await store.checkpoints())[0]!;
  t.equal(checkpoint.pages.length, 2, 'validators of pages 2 and 3 kept');

  wire.log.exchanges.splice(0);
  const second = await sync();
  t.same(wire.log.exchanges.map((e) => [e.status, e.bytes]), [[304, 0], [304, 0], [304, 0]], 'three pages, three 304s');
  t.equal(second.resources[0]!.outcome, 'unchanged');

  t.equal((await s.json(CHOICES, send('POST', { field: 'letters', value: 'f', display: 'F', ordernum: 9 }, token))).status, 201);
  wire.log.exchanges.splice(0);
  const events: SyncEvent[] = [];
  const third = await sync(events);
  t.same(third.resources[0]!.changes!.added, ['letters/f']);
  t.equal(third.resources[0]!.items, 6);
  t.same(wire.log.exchanges.map((e) => e.status), [200, 200, 200]);
  t.same(events.map((e) => e.type), ['fetching', 'fetched', 'committing', 'applying']);
});

t.test('a mirror of another server (or user) is rebuilt, not mixed', async (t) => {
  const a = await startTestServer(t);
  const b = await startTestServer(t);
  if (!a || !b) return;
  const tokenA = (await a.login()).access_token;
  const tokenB = (await b.login()).access_token;
  await a.json('/api/v1.0/activity/patrols/types', send('POST', { value: 'only_on_a', display: 'A' }, tokenA));
  await b.json('/api/v1.0/activity/patrols/types', send('POST', { value: 'only_on_b', display: 'B' }, tokenB));
  const undici = createUndiciTransport();
  t.teardown(() => undici.close());
  const store = new KnexMirrorStore((await openMirrorDatabase(':memory:', { create: true }))!);
  t.teardown(() => store.close());
  const specs = RESOURCE_SPECS.filter((s) => s.name === 'patrol_types');
  await runSync({ transport: authorizedTransport(undici, tokenSession(a.url, tokenA)), server: a.url, username: 'admin', store, specs });
  const report = await runSync({ transport: authorizedTransport(undici, tokenSession(b.url, tokenB)), server: b.url, username: 'admin', store, specs });
  t.equal(report.reset, true);
  t.match(report.warnings[0], /held data of http:\/\/127\.0\.0\.1:\d+ \(admin\); it now mirrors/);
  t.same((await store.items('patrol_types')).map((i) => i.value), ['only_on_b']);
  t.same(await store.meta(), { server: b.url, username: 'admin' });
});
