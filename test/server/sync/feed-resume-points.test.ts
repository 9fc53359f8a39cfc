import t from 'tap';
import { dialect } from '../../helpers/server.js';
import { createEvent, feed, pullAll, recount, startFeedServer } from './feed-support.js';

/**
 * Resume points (docs/sync.md §8): a page of 10 changes or more names, every tenth of it or more often,
 * the cursor that resumes right after a change. Resuming there serves the rest of the page (and
 * what follows), in the snapshot and in the log phase; a laptop that commits at each point and
 * continues from any of them still reaches the verified checkpoint.
 */
t.test(`sync feed: resume points (${dialect})`, async (t) => {
  const fx = await startFeedServer(t);
  if (!fx) return;
  const { s, token } = fx;
  for (let i = 0; i < 25; i++) await createEvent(s, token);
  const scopes = ['ev:all'];

  const resumedAt = async (page: { changes: Array<{ id: string }>; resume_points?: Array<{ index: number; cursor: string }> }, which: number, limit: number) => {
    const point = page.resume_points![which]!;
    const next = await feed(s, token, { cursor: point.cursor, scopes, limit });
    t.equal(next.status, 200);
    return { point, next: next.body };
  };

  await t.test('snapshot: every tenth of the page, and each resumes right after its change', async (t) => {
    const first = await feed(s, token, { cursor: null, scopes, limit: 25 });
    t.equal(first.body.changes.length, 25);
    t.same(first.body.resume_points!.map((p) => p.index), [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23], 'every second change of 25 (no segment over a tenth), never the last');
    for (const which of [0, 5, 11]) {
      const { point, next } = await resumedAt(first.body, which, 25);
      const rest = first.body.changes.slice(point.index + 1).map((c) => c.id);
      if (dialect === 'sqlite') {
        t.same(next.changes.slice(0, rest.length).map((c) => c.id), rest, `resuming after change ${point.index} serves the rest of the page, in order`);
      } else {
        // PostgreSQL: while another test's transaction holds the cluster's horizon, the snapshot
        // began below these creates, so the log part of the page serves them again (and a record
        // the snapshot part would serve moves to its log row): the rest is served, maybe later.
        const served = new Set(next.changes.map((c) => c.id));
        t.ok(rest.every((id) => served.has(id)), `resuming after change ${point.index} serves the rest of the page`);
      }
    }
    const small = await feed(s, token, { cursor: null, scopes, limit: 9 });
    t.same(small.body.resume_points, [], 'none on a page of fewer than 10');
  });

  await t.test('log phase: the same, and a laptop resuming at a point still verifies', async (t) => {
    const caught = await pullAll(s, token, scopes);
    for (let i = 0; i < 12; i++) await createEvent(s, token);
    const page = await feed(s, token, { cursor: caught.cursor, scopes, limit: 100 });
    t.equal(page.body.changes.length, 12);
    t.same(page.body.resume_points!.map((p) => p.index), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'a page of 12: after every change but the last');
    const { point, next } = await resumedAt(page.body, 2, 100);
    t.same(next.changes.map((c) => c.id), page.body.changes.slice(point.index + 1).map((c) => c.id), 'the rest of the log page, nothing more, nothing less');
    // A laptop that committed only up to the point, then resumed.
    const mirror = caught.mirror;
    for (const change of page.body.changes.slice(0, point.index + 1)) mirror.set(`${change.kind}:${change.id}`, change);
    const rest = await pullAll(s, token, scopes, { cursor: point.cursor, mirror });
    t.ok(rest.last.checkpoint, 'verified at the end');
    t.same(rest.last.checkpoint!.scopes.map(({ count, checksum }) => ({ count, checksum })), [recount(mirror, 'ev:all')], 'the checkpoint matches what the laptop holds');
    t.equal(recount(mirror, 'ev:all').count, 37);
  });
});
