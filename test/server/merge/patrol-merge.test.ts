import t from 'tap';
import { createType, send } from '../../helpers/catalog.js';
import { ManualClock, dialect, startTestServer } from '../../helpers/server.js';
import { CONFLICTS, P, historyOf, offline, revisionOf } from './merge-support.js';

const HOUR = 3_600_000;

/** Offline patrol and segment updates merged field by field (issue 26 §3), over HTTP with Fieldops-Base-Revision. */
t.test(`patrol merge (${dialect})`, async (t) => {
  const clock = new ManualClock();
  const s = await startTestServer(t, { clock });
  if (!s) return;
  const token = (await s.login()).access_token;
  await createType(s, token, { value: 'foot', display: 'Foot' });
  const at = (hours: number) => new Date(clock.current + hours * HOUR).toISOString();
  const create = async (title = 'Night') => {
    const created = await s.json(P, send('POST', { title, patrol_segments: [{ patrol_type: 'foot', time_range: { start_time: at(-2) } }] }, token));
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    return { id: created.body.id as string, segment: created.body.patrol_segments[0].id as string, revision: await revisionOf(s, token, 'patrol', created.body.id) };
  };
  const patch = (id: string, body: unknown) => s.json(`${P}/${id}`, send('PATCH', body, token));

  await t.test('revisions: creates start at 1; a write of the patrol or a segment moves it; a changed segment takes the patrol\'s', async (t) => {
    const { id, segment, revision } = await create();
    t.equal(revision, 1);
    t.equal((await patch(id, { title: 'Renamed' })).status, 200);
    t.equal(await revisionOf(s, token, 'patrol', id), 2);
    const seg = await s.json(`${P}/segments/${segment}`, send('PATCH', { scheduled_end: at(5) }, token));
    t.equal(seg.status, 200);
    t.equal(await revisionOf(s, token, 'patrol', id), 3, 'a segment write moves its patrol');
    const row = await s.server.runtime.database.knex('patrol_segments').where({ id: segment }).first();
    t.equal(Number(row.revision), 3, 'the segment takes the patrol\'s new revision');
  });

  await t.test('ending a patrol whose title changed at HQ merges', async (t) => {
    const { id, segment, revision: base } = await create();
    t.equal((await patch(id, { title: 'Night (HQ)' })).status, 200);
    const ended = await s.json(`${P}/${id}`, offline('PATCH', { state: 'done', patrol_segments: [{ id: segment, time_range: { end_time: at(-1) } }] }, token, base, 'laptop-3'));
    t.equal(ended.status, 200, JSON.stringify(ended.body));
    t.match(ended.body, { title: 'Night (HQ)', state: 'done' });
    t.ok(ended.body.patrol_segments[0].time_range.end_time, 'the segment ended');
    const h = await historyOf(s, token, 'patrol', id);
    t.match(h.revisions[0], { device: 'laptop-3', merged: ['title'], fields: { state: ['open', 'done'] } });
    t.ok(h.revisions[0].fields[`segments.${segment}.end_time`], 'the end time is in the history');
    t.same(h.conflicts, []);
  });

  await t.test('the same field on both sides is held; a standalone segment update merges on the segment\'s revision', async (t) => {
    const { id, segment, revision: base } = await create();
    t.equal((await patch(id, { title: 'HQ' })).status, 200);
    const held = await s.json(`${P}/${id}`, offline('PATCH', { title: 'Laptop', objective: 'Fence line' }, token, base));
    t.equal(held.status, 200);
    t.match(held.body, { title: 'HQ', objective: 'Fence line' });
    const { body } = await s.json(`${CONFLICTS}?kind=patrol&record=${id}`, { token });
    t.match(body.conflicts, [{ field: 'title', base: 'Night', mine: 'Laptop', theirs: 'HQ', status: 'open', kind: 'patrol' }]);

    const detail = await s.json(`${P}/${id}`, { token });
    const segmentBase = detail.body.patrol_segments[0].revision as number;
    t.equal((await patch(id, { priority: 300 })).status, 200, 'HQ changes the patrol meanwhile');
    const seg = await s.json(`${P}/segments/${segment}`, offline('PATCH', { time_range: { end_time: at(-1) } }, token, segmentBase));
    t.equal(seg.status, 200, JSON.stringify(seg.body));
    t.ok(seg.body.time_range.end_time);
    t.same((await historyOf(s, token, 'patrol', id)).revisions[0].merged, ['objective', 'priority', 'title'], 'every patrol change since the segment\'s revision is kept');

    const corrected = await s.json(`${P}/segments/${segment}`, offline('PATCH', { time_range: { start_time: at(-3) } }, token, segmentBase));
    t.equal(corrected.status, 200, 'a corrected start never collides with the end (time_range is two fields)');
    t.equal((await s.json(`${CONFLICTS}?kind=patrol&record=${id}&status=open`, { token })).body.conflicts.length, 1, 'still only the title conflict');
  });

  await t.test('the automatic-done sweep is a revision of device server', async (t) => {
    const { id, segment } = await create();
    t.equal((await s.json(`${P}/segments/${segment}`, send('PATCH', { time_range: { end_time: at(-1) } }, token))).status, 200);
    const state = (await s.json(`${P}/${id}`, { token })).body.state;
    if (state === 'open') await s.server.runtime.sweeper.sweepOnce();
    const h = await historyOf(s, token, 'patrol', id);
    t.ok(h.revisions.some((r: { fields: Record<string, unknown> }) => 'state' in r.fields), 'the state change is in the history');
    t.equal((await s.json(`${P}/${id}`, { token })).body.state, 'done');
  });
});
