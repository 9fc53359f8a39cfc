/**
 * A page applied in segments (docs/sync.md §8, sync/feed/apply.ts) on a real mirror file: each
 * segment commits its records with the resume point's cursor, so a failure part-way (here a
 * trigger that makes SQLite abort an insert, as a kill would end the process) leaves exactly the
 * segments before it, with their cursor; a page without points is one transaction; points out
 * of order or outside the page are ignored; dropped keys go in the first segment, the checkpoint
 * is compared in the last.
 */
import type { Knex } from 'knex';
import t from 'tap';
import type { Change, FeedPage, ResumePoint } from '../../../protocol/sync.js';
import { applyPage } from '../../../sync/feed/apply.js';
import { readFeedState } from '../../../sync/feed/state.js';
import { event } from './fake-feed.js';
import { freshMirror } from './mirror-file.js';

const DAY = 'ev:day:2026-11-25';
const OLD_DAY = 'ev:day:2026-10-26';

const put = (i: number, scopes = [DAY]): Change => ({ kind: 'event', id: `e${i}`, op: 'put', version: 100 + i, etag: null, revision: 1, scopes, record: event(`2026-11-25T${String(i % 24).padStart(2, '0')}:00:00Z`) });

function page(count: number, points: ResumePoint[] | undefined, extra: Partial<FeedPage> = {}): FeedPage {
  return { changes: Array.from({ length: count }, (_, i) => put(i)), cursor: 'page-end', has_more: true, settling: false, checkpoint: null, granted: [DAY], denied: [], ...(points ? { resume_points: points } : {}), ...extra };
}

/** Makes SQLite abort the insert of one event: the transaction that carries it rolls back. */
const failOn = (knex: Knex, id: string) => knex.raw(`CREATE TRIGGER fail_${id} BEFORE INSERT ON pulled_events WHEN NEW.id = '${id}' BEGIN SELECT RAISE(ABORT, 'stopped here'); END`);

const heldIds = async (knex: Knex) => ((await knex('pulled_events').select('id').orderBy('id')) as Array<{ id: string }>).map((row) => Number(row.id.slice(1))).sort((a, b) => a - b);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

t.test('a page with resume points commits segment by segment', async (t) => {
  const knex = await freshMirror(t);
  const points = [{ index: 9, cursor: 'after-9' }, { index: 19, cursor: 'after-19' }];
  await failOn(knex, 'e22');
  await t.rejects(applyPage(knex, page(25, points), { sweep: false }), /stopped here/);
  t.same(await heldIds(knex), range(20), 'the two segments before the failure are kept whole');
  t.equal((await readFeedState(knex)).cursor, 'after-19', 'with the cursor that resumes after them');
  t.equal(await knex('record_scopes').count({ n: '*' }).first().then((row) => Number(row!.n)), 20, 'and their memberships');

  await knex.raw('DROP TRIGGER fail_e22');
  const resumed = page(25, points);
  resumed.changes = resumed.changes.slice(20);
  const result = await applyPage(knex, resumed, { sweep: false });
  t.equal(result.put, 5, 'the rerun applies the rest');
  t.same(await heldIds(knex), range(25));
  t.equal((await readFeedState(knex)).cursor, 'page-end');
});

t.test('without resume points (an older server) the page is one transaction', async (t) => {
  const knex = await freshMirror(t);
  await failOn(knex, 'e22');
  await t.rejects(applyPage(knex, page(25, undefined), { sweep: false }), /stopped here/);
  t.same(await heldIds(knex), [], 'nothing of the page');
  t.equal((await readFeedState(knex)).cursor, null);
});

t.test('points out of order or outside the page are ignored', async (t) => {
  const knex = await freshMirror(t);
  const points = [{ index: 9, cursor: 'after-9' }, { index: 4, cursor: 'backwards' }, { index: 24, cursor: 'the-last-change' }, { index: 40, cursor: 'beyond' }, { index: 1.5, cursor: 'not-an-index' }];
  await failOn(knex, 'e23');
  await t.rejects(applyPage(knex, page(25, points), { sweep: false }), /stopped here/);
  t.same(await heldIds(knex), range(10), 'cut at the one valid point only');
  t.equal((await readFeedState(knex)).cursor, 'after-9');
});

t.test('keys no longer granted go in the first segment; the checkpoint is compared in the last', async (t) => {
  const knex = await freshMirror(t);
  const first = page(3, undefined, { granted: [DAY, OLD_DAY] });
  first.changes = [put(50, [OLD_DAY]), put(51, [OLD_DAY]), put(52, [DAY])];
  await applyPage(knex, first, { sweep: false });
  t.same(await heldIds(knex), [50, 51, 52]);

  // The old day left the window: its records go with the first segment, even if a later one fails.
  await failOn(knex, 'e15');
  await t.rejects(applyPage(knex, page(20, [{ index: 9, cursor: 'after-9' }]), { sweep: false, previous: [DAY, OLD_DAY] }), /stopped here/);
  t.same(await heldIds(knex), [...range(10), 52], 'the dropped day is swept with the first segment');
  await knex.raw('DROP TRIGGER fail_e15');

  const rest = page(20, [{ index: 4, cursor: 'after-14' }], { has_more: false, checkpoint: { cursor: 'page-end', scopes: [{ key: DAY, count: 21, checksum: 0 }] } });
  rest.changes = rest.changes.slice(10);
  const result = await applyPage(knex, rest, { sweep: false, previous: [DAY] });
  t.same(await heldIds(knex), [...range(20), 52]);
  t.equal(result.mismatched.length, 1, 'the checkpoint was compared with all the rows, after the last segment');
  t.equal(result.mismatched[0]!.local.count, 21, 'counting every record of the page');
});
