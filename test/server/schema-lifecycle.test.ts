import t from 'tap';
import { ManualClock, dialect, startTestServer } from '../helpers/server.js';
import { V2, detailOf, historyOf, sendWith } from './schema-lifecycle-support.js';
import { sampleSchema, send } from '../helpers/catalog.js';

// Issue 28 part 3: as-of reads and restore of v2 event types (server side).

t.test(`as-of by revision and by date; restore (${dialect})`, async (t) => {
  const clock = new ManualClock();
  const s = await startTestServer(t, { clock });
  if (!s) return;
  const token = (await s.login()).access_token;
  const created = await s.json(V2, send('POST', { value: 'lc', display: 'One', schema: sampleSchema('notes') }, token));
  t.equal(created.status, 201, JSON.stringify(created.body));
  const written = [(await detailOf(s, token, 'lc')).body];
  clock.advance(60_000);
  t.equal((await s.json(`${V2}/lc`, send('PATCH', { schema: sampleSchema('remarks') }, token))).status, 200);
  written.push((await detailOf(s, token, 'lc')).body);
  clock.advance(60_000);
  t.equal((await s.json(`${V2}/lc`, send('PATCH', { schema: sampleSchema('comment'), display: 'Three' }, token))).status, 200);
  written.push((await detailOf(s, token, 'lc')).body);
  const history = await historyOf(s, token, 'lc');
  t.same(history.results.map((e) => e.sequence), [3, 2, 1], 'three revisions');

  await t.test('as_of?revision=N equals what was written at N', async (t) => {
    for (const [index, body] of written.entries()) {
      const asOf = await s.json(`${V2}/lc/as_of?revision=${index + 1}`, { token });
      t.equal(asOf.status, 200);
      t.same(asOf.body.schema, body.schema, `revision ${index + 1}: the schema`);
      t.equal(asOf.body.display, body.display, `revision ${index + 1}: the display`);
      t.equal(asOf.body.revision, index + 1);
      t.equal(asOf.body.revision_time, history.results.find((e) => e.sequence === index + 1)!.time, 'revision_time is the history entry\'s time');
      t.equal(asOf.body.id, created.body.id);
    }
  });

  await t.test('as_of?date= picks the latest revision at or before it', async (t) => {
    const times = [...history.results].reverse().map((e) => Date.parse(e.time));
    const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    t.equal((await s.json(`${V2}/lc/as_of?date=${at(times[0]!)}`, { token })).body.revision, 1, 'exactly at revision 1');
    const between = await s.json(`${V2}/lc/as_of?date=${at(times[1]! + 30_000)}`, { token });
    t.equal(between.body.revision, 2, 'between 2 and 3: revision 2');
    t.same(between.body.schema, written[1]!.schema);
    t.equal((await s.json(`${V2}/lc/as_of?date=${at(times[2]! + 1)}`, { token })).body.revision, 3, 'after the last: the latest');
    t.equal((await s.json(`${V2}/lc/as_of?date=${at(times[0]! - 1)}`, { token })).status, 404, 'before it existed: 404');
  });

  await t.test('as_of input errors', async (t) => {
    t.equal((await s.json(`${V2}/lc/as_of`, { token })).status, 400, 'neither');
    t.equal((await s.json(`${V2}/lc/as_of?revision=1&date=2026-11-20T10:00:00Z`, { token })).status, 400, 'both');
    t.equal((await s.json(`${V2}/lc/as_of?revision=abc`, { token })).status, 400);
    t.equal((await s.json(`${V2}/lc/as_of?date=2026-11-20T10:00:00`, { token })).status, 400, 'no offset');
    t.equal((await s.json(`${V2}/lc/as_of?revision=99`, { token })).status, 404, 'a revision past the latest');
    t.equal((await s.json(`${V2}/nope/as_of?revision=1`, { token })).status, 404, 'no such type');
  });

  await t.test('restore: If-Match required, 412 stale, dry run, round trip', async (t) => {
    const before = await detailOf(s, token, 'lc');
    const restore = (body: unknown, headers: Record<string, string> = {}, query = '') => s.json(`${V2}/lc/restore${query}`, sendWith('POST', body, token, headers));
    const missing = await restore({ revision: 1 });
    t.equal(missing.status, 428, 'no If-Match: 428');
    t.equal(missing.body.status.code, 428);
    t.equal((await restore({ revision: 1 }, { 'If-Match': '"stale"' })).status, 412, 'a stale tag: 412');
    t.equal((await restore({ revision: 0 }, { 'If-Match': before.etag })).status, 400, 'revision 0');
    t.equal((await restore({ revision: 9 }, { 'If-Match': before.etag })).status, 400, 'a revision past the latest');
    t.equal((await restore({}, { 'If-Match': before.etag })).status, 400, 'no revision');

    const dry = await restore({ revision: 1 }, {}, '?dry_run=true');
    t.equal(dry.status, 200);
    t.same(dry.body.data, { revision: 1, current: 3, would_change: true, schema_before: written[2]!.schema, schema_after: written[0]!.schema });
    t.equal((await historyOf(s, token, 'lc')).count, 3, 'a dry run writes no history');
    t.equal((await detailOf(s, token, 'lc')).etag, before.etag, 'nor changes the type');

    const done = await restore({ revision: 1 }, { 'If-Match': before.etag });
    t.equal(done.status, 200, JSON.stringify(done.body));
    t.same(done.body.schema, written[0]!.schema, 'the schema of revision 1');
    t.equal(done.body.display, 'One', 'and its display');
    const after = await detailOf(s, token, 'lc');
    t.same(after.body.schema, written[0]!.schema);
    t.not(after.etag, before.etag, 'the ETag moved');
    const grown = await historyOf(s, token, 'lc');
    t.equal(grown.count, 4, 'one new history entry');
    t.equal(grown.results[0]!.note, 'Restored revision 1.', 'noting what was restored');
    t.notOk('note' in grown.results[1]!, 'ordinary writes carry no note');
    t.same((await s.json(`${V2}/lc/as_of?revision=4`, { token })).body.schema, written[0]!.schema, 'revision 4 is revision 1 again');

    const same = await restore({ revision: 1 }, { 'If-Match': after.etag });
    t.equal(same.status, 200, 'restoring to the current content');
    t.equal((await historyOf(s, token, 'lc')).count, 4, 'writes nothing');
    t.equal((await detailOf(s, token, 'lc')).etag, after.etag);
    t.equal((await restore({ revision: 1 }, {}, '?dry_run=true')).body.data.would_change, false);
  });

  await t.test('restore keeps the value', async (t) => {
    t.equal((await s.json(`${V2}/lc`, send('PATCH', { value: 'lc_renamed' }, token))).status, 200);
    const current = await detailOf(s, token, 'lc_renamed');
    const done = await s.json(`${V2}/lc_renamed/restore`, sendWith('POST', { revision: 2 }, token, { 'If-Match': current.etag }));
    t.equal(done.status, 200);
    t.equal(done.body.value, 'lc_renamed', 'value is not restored (events are recorded under it)');
    t.same(done.body.schema, written[1]!.schema);
  });
});
