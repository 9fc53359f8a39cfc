/**
 * Issue 28: the mirror keeps usage summaries (migration, store accessors) and `fieldops sync`
 * refreshes them with at most one request per 200 types, only after a change of the event
 * types or when the last ask is old, and skips a server without the route (404).
 */
import t, { type Test } from 'tap';
import { KnexMirrorStore } from '../../sync/mirror/knex-store.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import type { Transport, TransportRequest } from '../../sync/http.js';
import { REFRESH_AFTER_MS, refreshUsageSummaries } from '../../sync/usage/refresh.js';

const SERVER = 'https://fieldops.test';
const summary = (event_type: string, events = 1) => ({ event_type, events, fields: { notes: { events, kinds: { string: events }, values: [], values_complete: false } } });

async function mirrorWith(t: Test, count: number) {
  const store = new KnexMirrorStore((await openMirrorDatabase(':memory:', { create: true }))!);
  t.teardown(() => store.close());
  const items = Array.from({ length: count }, (_, i) => ({ id: `id-${i}`, value: `type_${i}`, display: `Type ${i}`, ordernum: i, is_active: true }));
  await store.apply({ meta: { server: SERVER, username: 'admin' }, syncedAt: new Date(0).toISOString(), reset: false, updates: [{ resource: 'event_types', kind: 'items', items, validators: { etag: null, lastModified: null, pages: [] } }] });
  return store;
}

function fakeServer(status: number) {
  const requests: URL[] = [];
  const transport: Transport = async (request: TransportRequest) => {
    const url = new URL(request.url);
    requests.push(url);
    const types = (url.searchParams.get('types') ?? '').split(',');
    const body = status === 200 ? { data: types.map((v) => summary(v)) } : { status: { code: 404, detail: 'not found' } };
    return { status, headers: { etag: '"u1"' }, body: new TextEncoder().encode(JSON.stringify(body)) };
  };
  return { transport, requests };
}

t.test('the store keeps, replaces and returns summaries; a reset drops them', async (t) => {
  const store = await mirrorWith(t, 2);
  t.same(await store.usageSummaries(['type_0']), []);
  t.equal(await store.usageCheckedAt(), null);
  await store.keepUsageSummaries({ summaries: [summary('type_0', 2), summary('type_1', 5)], fetchedAt: '2026-11-20T10:00:00.000Z', etag: '"a"', checkedAt: '2026-11-20T10:00:00.000Z' });
  await store.keepUsageSummaries({ summaries: [summary('type_0', 7)], fetchedAt: '2026-11-20T11:00:00.000Z', etag: null, checkedAt: '2026-11-20T11:00:00.000Z' });
  const kept = (await store.usageSummaries(['type_0', 'type_1', 'other'])).sort((a, b) => a.eventType.localeCompare(b.eventType));
  t.same(kept.map((k) => [k.eventType, k.summary.events, k.fetchedAt, k.etag]), [['type_0', 7, '2026-11-20T11:00:00.000Z', null], ['type_1', 5, '2026-11-20T10:00:00.000Z', '"a"']]);
  t.equal(await store.usageCheckedAt(), '2026-11-20T11:00:00.000Z');
  await store.apply({ meta: { server: 'https://other.test', username: 'x' }, syncedAt: new Date(0).toISOString(), reset: true, updates: [] });
  t.same(await store.usageSummaries(['type_0', 'type_1']), [], 'another server: dropped');
  t.equal(await store.usageCheckedAt(), null);
});

t.test('sync refresh: one request per 200 types, then none until the types change or it is old', async (t) => {
  const store = await mirrorWith(t, 450);
  const server = fakeServer(200);
  let now = Date.UTC(2026, 10, 20, 10);
  const refresh = (typesChanged = false) => refreshUsageSummaries({ transport: server.transport, server: SERVER, store, now: () => now, typesChanged });
  t.match(await refresh(), { status: 'kept', types: 450, requests: 3 });
  t.equal(server.requests.length, 3);
  t.ok(server.requests.every((u) => u.pathname === '/api/v2.0/activity/eventtypes/usage' && u.searchParams.get('types')!.split(',').length <= 200), 'batches of at most 200');
  t.equal((await store.usageSummaries(['type_0', 'type_449'])).length, 2);
  now += REFRESH_AFTER_MS / 2;
  t.match(await refresh(), { status: 'fresh', requests: 0 });
  t.equal(server.requests.length, 3, 'an unchanged sync soon after asks nothing');
  t.match(await refresh(true), { status: 'kept' });
  t.equal(server.requests.length, 6, 'changed event types: asked again');
  now += REFRESH_AFTER_MS + 1;
  t.match(await refresh(), { status: 'kept' });
  t.equal(server.requests.length, 9, 'an old ask: asked again');
});

t.test('a server without the route: skipped, one request, not asked again soon', async (t) => {
  const store = await mirrorWith(t, 3);
  const server = fakeServer(404);
  const now = Date.UTC(2026, 10, 20, 10);
  t.match(await refreshUsageSummaries({ transport: server.transport, server: SERVER, store, now: () => now, typesChanged: true }), { status: 'not_offered', requests: 1 });
  t.match(await refreshUsageSummaries({ transport: server.transport, server: SERVER, store, now: () => now + 1000, typesChanged: false }), { status: 'fresh' });
  t.equal(server.requests.length, 1);
  t.same(await store.usageSummaries(['type_0']), []);
});
