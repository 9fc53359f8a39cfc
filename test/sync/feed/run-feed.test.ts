/**
 * The CLI side of the change feed on a real mirror file (SQLite), against an in-memory feed
 * server (fake-feed.ts): first pull in pages, deletions and removals, the version guard,
 * checkpoints checked against the rows and repaired, resets, the fallback, and a pull killed
 * between pages that re-sends at most one page.
 */
import t from 'tap';
import type { Knex } from 'knex';
import { scopeChangeText } from '../../../cli/render/feed-report.js';
import { dayKeys } from '../../../protocol/scope-keys.js';
import { FeedClient } from '../../../sync/feed/client.js';
import { FIRST_PAGE_CHANGES, NO_FEED_WARNING, pageLimit, runFeed, type FeedRunOptions } from '../../../sync/feed/run-feed.js';
import { readFeedState } from '../../../sync/feed/state.js';
import { tamperedRows, refetch } from '../../../sync/feed/verify.js';
import { pulledRows } from '../../../sync/pull/pulled.js';
import { FakeFeed, event } from './fake-feed.js';
import { freshMirror } from './mirror-file.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const today = dayKeys('ev:day', 1, NOW)[0]!;
const DAY = today.slice('ev:day:'.length);

function options(knex: Knex, feed: FakeFeed, extra: Partial<FeedRunOptions> = {}): FeedRunOptions {
  return {
    knex,
    client: new FeedClient({ transport: feed.transport(), server: feed.server, attempts: 1, wait: async () => {} }),
    server: feed.server,
    username: 'ranger',
    repair: true,
    userId: async () => 'user-1',
    fallback: async () => [{ resource: 'patrols', received: 0, changed: 0, requests: 1, since: null }],
    now: () => NOW,
    wait: async () => {},
    limit: 3,
    ...extra,
  };
}

function seed(feed: FakeFeed, events = 7) {
  for (let i = 0; i < events; i++) feed.put('event', `e${i}`, event(`${DAY}T0${i}:00:00Z`), [today]);
  feed.put('patrol', 'p1', { serial_number: 12, state: 'open', patrol_segments: [] }, ['pa:open']);
  feed.put('subject', 's1', { name: 'Ranger Amani', last_position_date: null }, ['su:group:g1']);
  feed.put('event_type', 'et1', { value: 'wildlife_sighting', display: 'Wildlife', is_active: true, category: 'monitoring' }, ['cat:event_types']);
  feed.put('patrol_type', 'pt1', { value: 'fence_patrol', display: 'Fence', is_active: true }, ['cat:patrol_types']);
  feed.put('choice', 'c1', { field: 'species', value: 'lion', display: 'Lion' }, ['cat:choices']);
  feed.put('event_category', 'cat1', { value: 'monitoring', display: 'Monitoring' }, ['cat:event_categories']);
}

t.test('first pull, then changes, deletions and removals', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  seed(feed);
  const first = await runFeed(options(knex, feed));
  t.equal(first.mode, 'feed');
  t.equal(first.received, 13, 'the snapshot: every record in scope once');
  t.equal(first.pages, 5, 'in pages of the limit (3)');
  t.equal(first.checkpoint, 'verified');
  t.equal((await pulledRows(knex, 'events')).length, 7);
  t.match(await knex('event_types').first(), { value: 'wildlife_sighting', category: 'monitoring', is_active: 1, version: feed.records.get('event_type\net1')!.version });
  t.match(await knex('choices').first(), { field: 'species', value: 'lion' });
  t.match(await knex('pulled_event_categories').first(), { value: 'monitoring' });
  t.match(await knex('pulled_patrols').first(), { label: '12', state: 'open', etag: /^"v\d+"$/ });

  feed.delete('event', 'e0');
  feed.put('event', 'e1', event(`${DAY}T01:00:00Z`, { state: 'resolved' }), [today]);
  feed.put('patrol', 'p1', { serial_number: 12, state: 'done', patrol_segments: [] }, []);
  feed.put('event_type', 'et1', { value: 'wildlife_sighting', display: 'Wildlife', is_active: false }, ['cat:event_types']);
  const second = await runFeed(options(knex, feed));
  t.equal(second.received, 4, 'only the changes');
  t.equal(second.counts.deleted, 2, 'a delete and a remove');
  t.equal(second.checkpoint, 'verified');
  const events = await pulledRows(knex, 'events');
  t.notOk(events.some((e) => e.id === 'e0'), 'the deleted event is gone');
  t.equal(events.find((e) => e.id === 'e1')?.state, 'resolved');
  t.equal((await pulledRows(knex, 'patrols')).length, 0, 'the patrol that left pa:open is removed');
  t.equal((await knex('event_types').first()).is_active, 0, 'a deactivated type is kept, flagged');
  t.equal(await knex('record_scopes').where({ id: 'e0' }).first(), undefined, 'its memberships too');

  const third = await runFeed(options(knex, feed));
  t.equal(third.received, 0, 'nothing new: no changes');
  t.equal(third.pages, 1, 'one request');
});

t.test('the version guard: an older change is ignored', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  seed(feed, 1);
  await runFeed(options(knex, feed));
  const { applyChanges } = await import('../../../sync/feed/apply.js');
  const held = (await knex('pulled_events').first()).version;
  const counts = await knex.transaction((trx) => applyChanges(trx, [{ kind: 'event', id: 'e0', op: 'put', version: held - 1, etag: null, revision: 1, scopes: [today], record: event('2020-01-01T00:00:00Z') }, { kind: 'event', id: 'e0', op: 'delete', version: held - 1, etag: null, revision: null, scopes: [], record: null }]));
  t.equal(counts.ignored, 1, 'the older of the two (the newest per record counts) is ignored');
  t.equal((await knex('pulled_events').first()).sort_time, `${DAY}T00:00:00Z`);
});

t.test('a checkpoint that differs is repaired in the same run', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  seed(feed);
  await runFeed(options(knex, feed));
  await knex('pulled_events').where({ id: 'e2' }).delete();
  await knex('pulled_events').where({ id: 'e3' }).update({ version: 1 });
  await knex('record_scopes').insert({ kind: 'event', id: 'e9', scope_key: today });
  await knex('pulled_events').insert({ id: 'e9', label: 'x', record: '{}', version: 99 });
  feed.put('event', 'e4', event(`${DAY}T04:30:00Z`), [today]);
  const report = await runFeed(options(knex, feed));
  t.match(report.mismatched, [{ server: { key: today, count: 7 }, local: { count: 7 } }], 'one missing, one extra: same count, another checksum');
  t.match(report.repairs, [{ scope: today, missing: 1, extra: 1, stale: 1, repaired: true }]);
  t.equal(report.checkpoint, 'repaired');
  t.same((await pulledRows(knex, 'events')).map((e) => e.id).sort(), ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
  t.equal((await runFeed(options(knex, feed))).checkpoint, 'verified', 'and the next pull agrees');
  const feedRequests = feed.requests.filter((r) => r.path === '/records');
  t.ok(feedRequests.every((r) => r.body.ids.length <= 500));
});

t.test('a row edited by hand is found and restored', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  seed(feed);
  await runFeed(options(knex, feed));
  t.same(await tamperedRows(knex, ['event', 'event_type']), []);
  await knex('event_types').update({ is_active: false });
  await knex('pulled_events').where({ id: 'e1' }).update({ record: JSON.stringify({ id: 'e1', event_type: 'edited' }) });
  const tampered = await tamperedRows(knex, ['event', 'event_type']);
  t.same(tampered.map((r) => [r.kind, r.id]).sort(), [['event', 'e1'], ['event_type', 'et1']]);
  t.match(tampered.find((r) => r.kind === 'event_type')!.columns, ['is_active']);
  const client = new FeedClient({ transport: feed.transport(), server: feed.server, attempts: 1 });
  await refetch({ client, knex, granted: [today, 'cat:event_types'], wait: async () => {} }, tampered, null);
  t.same(await tamperedRows(knex, ['event', 'event_type']), []);
  t.equal((await knex('event_types').first()).is_active, 1);
});

t.test('key-set changes without a reset; resets: 410, another server; the outbox stays', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  seed(feed);
  await runFeed(options(knex, feed));
  await knex('outbox').insert({ id: 'o1', kind: 'event.create', body: '{}', recorded_at: new Date(NOW).toISOString() });

  const scoped = await runFeed(options(knex, feed, { scopes: ['category:monitoring'] }));
  t.same(scoped.resets, [], 'a changed --scope is not a reset');
  t.match(scoped.scopeChange, { added: [] }, 'no key added');
  t.ok(scoped.scopeChange!.removed.includes(today), 'the day keys dropped');
  t.equal(scoped.received, 0, 'nothing re-sent');
  t.equal((await pulledRows(knex, 'events')).length, 0, 'events of no asked scope are dropped at once');
  t.equal((await knex('choices')).length, 1, 'the catalogs stay (always asked for)');
  t.same((await readFeedState(knex)).scopes, ['category:monitoring'], 'stored');
  t.equal(scoped.checkpoint, 'verified');

  const back = await runFeed(options(knex, feed, { scopes: [] }));
  t.same(back.resets, []);
  t.equal(back.received, 9, 'only the records of the added keys (7 events, the patrol and the subject)');
  t.equal((await pulledRows(knex, 'events')).length, 7);
  t.equal(back.checkpoint, 'verified');

  feed.requests.length = 0;
  const tomorrow = await runFeed(options(knex, feed, { now: () => NOW + 86_400_000 }));
  t.same(tomorrow.resets, [], 'the date moving is not a reset');
  t.match(tomorrow.scopeChange, { added: { length: 2 }, removed: { length: 2 } }, 'a day in, a day out (events and patrols)');
  t.equal(scopeChangeText(tomorrow.scopeChange!), 'scopes changed: +2 keys, \u22122 keys (no reset)', 'as the output says it');
  t.equal(tomorrow.received, 0, 'nothing held is sent again');
  t.equal(feed.requests.filter((r) => r.path === '/changes').length, 1, 'one request');
  t.equal(tomorrow.checkpoint, 'verified');
  t.equal((await pulledRows(knex, 'events')).length, 7);
  const later = await runFeed(options(knex, feed, { now: () => NOW + 31 * 86_400_000 }));
  t.same(later.resets, []);
  t.equal((await pulledRows(knex, 'events')).length, 0, 'events whose day left the window are dropped');
  t.equal(later.checkpoint, 'verified');

  feed.put('subject', 's2', { name: 'Ranger Baraka', last_position_date: null }, ['su:group:g2']);
  feed.requests.length = 0;
  const group = await runFeed(options(knex, feed, { now: () => NOW + 31 * 86_400_000 }));
  t.same(group.resets, [], 'a group newly visible (su:*) is not a reset');
  t.match(group.scopeChange, { added: ['su:group:g2'], removed: [] });
  t.same(feed.requests.filter((r) => r.path === '/changes').map((r) => r.body.previous_scopes !== undefined), [false, true], 'the 410 is answered once by naming the previous keys');
  t.equal((await pulledRows(knex, 'subjects')).length, 2);
  t.equal(group.checkpoint, 'verified');

  feed.status = 410;
  const gone = runFeed(options(knex, feed, { now: () => NOW }));
  await t.rejects(gone, /410/, 'a 410 to a fresh start too is an error, not a loop');
  feed.status = null;
  feed.goneCode = 'sync_scopes_changed';
  let once = true;
  const transport = feed.transport();
  const client = new FeedClient({ transport: async (r) => (once && r.url.endsWith('/changes') ? ((once = false), { status: 410, headers: {}, body: new TextEncoder().encode('{"status":{"code":410},"scopes":[{"code":"sync_scopes_changed"}]}') }) : transport(r)), server: feed.server, attempts: 1 });
  const changed = await runFeed(options(knex, feed, { client }));
  t.match(changed.resets, [/permissions or scopes changed/]);
  t.equal((await pulledRows(knex, 'events')).length, 7);

  const other = await runFeed(options(knex, feed, { username: 'someone-else' }));
  t.match(other.resets, [/another server or user/]);
  t.equal((await knex('outbox')).length, 1, 'the outbox is never touched');

  const reset = await runFeed(options(knex, feed, { username: 'someone-else', reset: true }));
  t.match(reset.resets, [/--reset/]);
  t.equal(reset.received, 14, 'every record in scope (s2 included)');
  t.equal((await knex('outbox')).length, 1);
});

t.test('a server without the feed: the older pull, warned once', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  feed.status = 404;
  let fallbacks = 0;
  const run = () => runFeed(options(knex, feed, { fallback: async () => (fallbacks++, []) }));
  const first = await run();
  t.equal(first.mode, 'fallback');
  t.same(first.warnings, [NO_FEED_WARNING]);
  const second = await run();
  t.same(second.warnings, [], 'once per mirror');
  t.equal(fallbacks, 2);
  feed.status = 503;
  t.equal((await run()).mode, 'fallback', '503 sync_preparing too');
  feed.status = 500;
  await t.rejects(run(), /failed with HTTP 500/);
});

t.test('settling: asked again, then reported not verified', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  seed(feed, 1);
  feed.settlingPages = 2;
  t.equal((await runFeed(options(knex, feed))).checkpoint, 'verified', 'verified once the server is quiet');
  feed.settlingPages = 10;
  const report = await runFeed(options(knex, feed));
  t.equal(report.checkpoint, 'not_verified');
  t.match(report.warnings, [/could not be verified yet/]);
});

t.test('a pull killed between pages resumes: at most one page again', async (t) => {
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  seed(feed, 20);
  feed.failAfter = 4;
  await t.rejects(runFeed(options(knex, feed)), /killed/);
  const held = (await knex.raw("select count(*) as n from (select distinct kind, id from record_scopes)"))[0].n;
  t.equal(held, 9, 'three pages of three committed, with their cursor');
  t.ok((await readFeedState(knex)).cursor);
  feed.failAfter = null;
  feed.requests.length = 0;
  const report = await runFeed(options(knex, feed));
  t.equal(report.resets.length, 0, 'no reset: resumed from the cursor');
  t.equal(report.received, 26 - 9, 'nothing received twice');
  t.equal(report.checkpoint, 'verified');
  t.equal((await knex.raw('PRAGMA integrity_check'))[0].integrity_check, 'ok');
});

t.test('page sizes grow with what the run received: a page is never more than a tenth of it, after the first ones', async (t) => {
  t.same([0, 1349, 1350, 1500, 9000, 9009, 50_000].map(pageLimit), [FIRST_PAGE_CHANGES, FIRST_PAGE_CHANGES, 150, 166, 1000, 1000, 1000]);
  const knex = await freshMirror(t);
  const feed = new FakeFeed();
  for (let i = 0; i < 4000; i++) feed.put('event', `e${String(i).padStart(4, '0')}`, event(`${DAY}T0${i % 10}:00:00Z`), [today]);
  const report = await runFeed(options(knex, feed, { limit: undefined }));
  t.equal(report.received, 4000);
  const asked = feed.requests.filter((r) => r.path === '/changes').map((r) => r.body.limit as number);
  t.same(asked.slice(0, 10), Array(10).fill(FIRST_PAGE_CHANGES), 'the first pages are small');
  let received = 0;
  for (const limit of asked) {
    if (received >= 9 * FIRST_PAGE_CHANGES) t.ok(limit * 10 <= received + limit, `a page of ${limit} after ${received} is at most a tenth of ${received + limit}`);
    received += limit;
  }
  t.ok(asked.at(-1)! > FIRST_PAGE_CHANGES, `and they grew (${asked.join(', ')})`);
});
