import t from 'tap';
import { send } from '../../helpers/catalog.js';
import { dialect } from '../../helpers/server.js';
import { sampleSchema } from '../../helpers/catalog.js';
import { E, type Mirror, createEvent, feed, fold, pullAll, recount, startFeedServer } from './feed-support.js';

/**
 * A reader paging with limit 7 while writers create, edit and delete events: after the writers
 * stop and the reader catches up, what it folded equals the database, every record at its
 * current version, and the checkpoint verifies.
 */
t.test(`sync feed: limit=7 pages under concurrent writes miss nothing (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token, tenantId } = fx;
  for (let i = 0; i < 10; i++) await createEvent(s, token, { title: `before ${i}` });

  const mirror: Mirror = new Map();
  let cursor: string | null = null;
  let pages = 0;
  let writing = true;
  const writer = async (lane: number) => {
    const mine: string[] = [];
    for (let i = 0; i < 25; i++) {
      mine.push((await createEvent(s, token, { title: `w${lane}-${i}`, event_type: i % 3 === 0 ? 'intrusion' : 'sighting' })).body.id);
      // Edit the one before; delete the one six back (never one edited later).
      if (i % 4 === 1) t.equal((await s.json(`${E}/${mine[i - 1]}`, send('PATCH', { title: `w${lane}-${i - 1} edited` }, token))).status, 200);
      if (i % 7 === 6) t.equal((await s.json(`${E}/${mine[i - 6]}`, { method: 'DELETE', token })).status, 204);
    }
  };
  const writers = Promise.all([writer(1), writer(2), writer(3)]).finally(() => (writing = false));
  let sawMoreWhileWriting = false;
  let last: any = null;
  const started = Date.now();
  for (;;) {
    // Read before the request: a page asked for while writing may miss the last writes.
    const wasWriting = writing;
    const page = await feed(s, token, { cursor, scopes: ['ev:all'], limit: 7 });
    t.equal(page.status, 200);
    t.ok(page.body.changes.length <= 7, 'never more than the limit');
    const ids = page.body.changes.map((c: { id: string }) => c.id);
    t.equal(new Set(ids).size, ids.length, 'a record at most once per page');
    fold(mirror, page.body.changes);
    cursor = page.body.cursor;
    pages++;
    last = page.body;
    if (wasWriting && page.body.has_more) sawMoreWhileWriting = true;
    if (!wasWriting && !page.body.has_more && !page.body.settling) break;
    // Time, not pages: another test's open transaction can hold PostgreSQL's (cluster-wide) horizon.
    if (Date.now() - started > 120_000) throw new Error('the feed never ends');
    if (!page.body.has_more) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await writers;
  t.ok(sawMoreWhileWriting || pages > 10, `paged while writing (${pages} pages)`);

  const knex = s.server.runtime.database.knex;
  const rows = (await knex('events').where({ tenant_id: tenantId }).select('id', 'title')) as Array<{ id: string; title: string }>;
  const held = [...mirror.values()].filter((c) => c.kind === 'event');
  t.same(held.map((c) => c.id).sort(), rows.map((r) => String(r.id)).sort(), 'the fold holds exactly the events in the database');
  const titles = new Map(rows.map((r) => [String(r.id), r.title]));
  t.ok(held.every((c) => (c.record as { title: string }).title === titles.get(c.id)), 'each with its current body');
  const versions = new Map(((await knex('sync_members').where({ tenant_id: tenantId, scope_key: 'ev:all' }).select('record_id', 'version')) as Array<{ record_id: string; version: unknown }>).map((r) => [r.record_id, Number(r.version)]));
  t.ok(held.every((c) => c.version === versions.get(c.id)), 'each at its current version');
  t.ok(last.checkpoint, 'the last page verifies');
  t.same(last.checkpoint.scopes.map((sum: { count: number; checksum: number }) => ({ count: sum.count, checksum: sum.checksum })), [recount(mirror, 'ev:all')], 'checkpoint equals a recount');
  t.equal(last.checkpoint.scopes[0].count, rows.length);
});

t.test(`sync feed: a page is cut at its limit and resumes exactly after it (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push((await createEvent(s, token)).body.id);
  // Until PostgreSQL's (cluster-wide) horizon has passed these writes, a snapshot would begin
  // below them and the log would serve them again: wait for a quiet answer first.
  await feed(s, token, { cursor: null, scopes: ['ev:all'] });
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const page = await feed(s, token, { cursor, scopes: ['ev:all'], limit: 5 });
    pages++;
    seen.push(...page.body.changes.map((c: { id: string }) => c.id));
    cursor = page.body.cursor;
    if (!page.body.has_more) {
      t.ok(page.body.checkpoint || page.body.settling, 'a checkpoint (or, on PostgreSQL while another transaction is open, settling)');
      break;
    }
    t.equal(page.body.checkpoint, null, 'no checkpoint while more is waiting');
  }
  t.equal(pages, 3, 'snapshot pages of 5, 5, 2');
  t.same([...seen].sort(), [...ids].sort(), 'each event once');
  for (let i = 0; i < 6; i++) await s.json(`${E}/${ids[i]}`, send('PATCH', { title: `edit ${i}` }, token));
  const log = await feed(s, token, { cursor, scopes: ['ev:all'], limit: 4 });
  t.equal(log.body.changes.length, 4);
  t.equal(log.body.has_more, true);
  const rest = await feed(s, token, { cursor: log.body.cursor, scopes: ['ev:all'], limit: 4 });
  t.same([...log.body.changes, ...rest.body.changes].map((c: { id: string }) => c.id), ids.slice(0, 6), 'the log in commit order, resumed after the cut');
});

t.test(`sync feed: a page stops at about 1 MiB and resumes after its last change (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  const big = 'x'.repeat(200_000);
  for (let i = 0; i < 8; i++) {
    const schema = sampleSchema();
    (schema.json.properties.notes as Record<string, unknown>).description = `${i} ${big}`;
    const created = await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: `big_${i}`, display: `Big ${i}`, default_priority: 100, default_state: 'active', schema }, token));
    t.equal(created.status, 201);
  }
  const first = await feed(s, token, { cursor: null, scopes: ['cat:event_types'], limit: 100 });
  t.equal(first.status, 200);
  const size = Buffer.byteLength(JSON.stringify(first.body));
  t.ok(first.body.changes.length < 10 && first.body.changes.length >= 1, `cut short (${first.body.changes.length} changes, ${size} bytes)`);
  t.ok(size < 2 * 1024 * 1024, 'near 1 MiB');
  t.equal(first.body.has_more, true);
  t.equal(first.body.checkpoint, null);
  const rest = await pullAll(s, token, ['cat:event_types'], { cursor: first.body.cursor, limit: 100 });
  const values = [...first.body.changes.map((c) => (c.record as { value: string }).value), ...[...rest.mirror.values()].map((c) => (c.record as { value: string }).value)];
  t.same([...new Set(values)].sort(), ['big_0', 'big_1', 'big_2', 'big_3', 'big_4', 'big_5', 'big_6', 'big_7', 'intrusion', 'sighting'], 'every type, across the cut');
});
