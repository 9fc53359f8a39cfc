/**
 * Patrols offline, end to end with the real CLI and a real server (both databases): start, note,
 * attach, end, pushed in order with the ids chosen offline; a patrol the server refuses takes its
 * notes and end with it; an incremental pull; and an offline end of a pulled patrol that changed
 * on the server meanwhile (If-Match, 412, `outbox resolve --mine`).
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { ManualClock, startTestServer } from '../helpers/server.js';
import { TYPES, seedCatalog } from '../helpers/sync-seed.js';
import { outboxOf, syncedCli, writeFile } from '../sync/offline-fixtures.js';

const P = '/api/v1.0/activity/patrols';

t.test('patrols recorded offline, pushed, pulled, and a conflict', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 10, 0, 0));
  const s = await startTestServer(t, { clock, env: { FIELDOPS_PATROL_SWEEP_SECONDS: '0' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const cli = await syncedCli(t, s.url);
  const json = async (args: string[]) => {
    const result = await cli.json(args);
    t.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.body;
  };

  await t.test('start, note, attach, end; pushed once, in order, with the offline ids', async (t) => {
    const started = await json(['patrols', 'start', '--type', 'fence_patrol', '--title', 'Fence north', '--leader', 'Ranger Amani', '--location', '-1.3,36.8']);
    const note = await json(['patrols', 'note', started.id.slice(0, 8), 'Fence cut at km 4']);
    const photo = writeFile(cli, 'fence.pdf', '%PDF-1.4 fence');
    const file = await json(['patrols', 'attach', started.id, photo, '--comment', 'the cut']);
    const end = await json(['patrols', 'end', started.id, '--location', '-1.31,36.81']);
    const listed = await json(['patrols', 'list']);
    t.match(listed, [{ id: started.id, title: 'Fence north', origin: 'queued' }], 'listed offline before the push');

    const push = await json(['push']);
    t.match(push, { total: 4, sent: 4, rejected: [], conflicts: [] });
    const patrol = (await s.json(`${P}/${started.id}`, { token })).body;
    t.equal(patrol.title, 'Fence north');
    t.equal(patrol.patrol_segments[0].id, started.segment);
    t.equal(patrol.patrol_segments[0].leader.name, 'Ranger Amani');
    t.ok(patrol.patrol_segments[0].time_range.end_time, 'ended');
    t.same(patrol.patrol_segments[0].end_location, { latitude: -1.31, longitude: 36.81 });
    t.same(patrol.notes.map((n: any) => [n.id, n.text]), [[note.id, 'Fence cut at km 4']]);
    t.same(patrol.files.map((f: any) => [f.id, f.comment]), [[file.id, 'the cut']]);
    t.equal(end.patrol, started.id);
    t.equal((await json(['push'])).total, 0, 'nothing left to send');
  });

  await t.test('a refused patrol takes what depends on it; the rest goes on', async (t) => {
    const refused = await json(['patrols', 'start', '--type', 'foot_patrol', '--title', 'Refused']);
    const note = await json(['patrols', 'note', refused.id, 'never sent']);
    const fine = await json(['patrols', 'start', '--type', 'fence_patrol', '--title', 'Fine']);
    const off = await s.json(`${TYPES}/foot_patrol`, send('PATCH', { is_active: false }, token));
    t.equal(off.status, 200);
    const push = await cli.json(['push']);
    t.equal(push.code, 1);
    t.same(push.body.rejected.map((r: any) => r.id), [refused.id, note.id]);
    t.match(push.body.rejected[1].reason, new RegExp(`depends on ${refused.id}, which is rejected`));
    t.equal((await s.json(`${P}/${refused.id}`, { token })).status, 404);
    t.equal((await s.json(`${P}/${fine.id}`, { token })).status, 200, 'the patrol after them was sent');
    await s.json(`${TYPES}/foot_patrol`, send('PATCH', { is_active: true }, token));
  });

  await t.test('pull: incremental, and read offline', async (t) => {
    const first = await json(['pull']);
    t.match(first.pull.find((p: any) => p.resource === 'patrols'), { received: 2, changed: 2 });
    t.match(first.pull.find((p: any) => p.resource === 'subjects'), { received: 1, changed: 1 });
    const patrols = await json(['patrols', 'list']);
    const pulled = patrols.filter((p: any) => p.origin === 'server');
    t.equal(pulled.length, 2);
    t.ok(pulled.every((p: any) => p.serial > 0), 'pushed patrols come back with their serial numbers');
    t.match(patrols.filter((p: any) => p.origin !== 'server'), [{ title: 'Refused', origin: 'rejected', serial: null }], 'the refused one is listed as such');
    t.match((await cli.run(['subjects', 'list'])).stdout, /Ranger Amani/);
    clock.advance(5 * 60_000);
    const second = await json(['pull']);
    t.same(second.pull.map((p: any) => p.changed), [0, 0, 0], 'an unchanged server: nothing new');
    t.ok(second.pull[0].received <= 2, 'only the newest rows come again (the overlap), not the whole list');
    clock.advance(60_000);
    const other = await s.json(P, send('POST', { title: 'From the office', patrol_segments: [{ patrol_type: 'fence_patrol', time_range: { start_time: new Date(clock.current - 3600_000).toISOString() } }] }, token));
    t.equal(other.status, 201);
    const third = await json(['pull']);
    t.match(third.pull[0], { resource: 'patrols', changed: 1 }, 'only the change');
    const office = (await json(['patrols', 'list'])).find((p: any) => p.title === 'From the office');
    t.ok(office);
    // A mirror that has pulled records pulls them on every sync too (push, catalogs, pull).
    clock.advance(60_000);
    t.equal((await s.json(P, send('POST', { title: 'Seen by sync', patrol_segments: [{ patrol_type: 'fence_patrol', time_range: { start_time: new Date(clock.current - 60_000).toISOString() } }] }, token))).status, 201);
    const synced = await json(['sync']);
    t.match(synced.pull?.find((p: any) => p.resource === 'patrols'), { changed: 1 }, 'sync pulled the new patrol');
    t.ok((await json(['patrols', 'list'])).some((p: any) => p.title === 'Seen by sync'));

    await t.test('ending a pulled patrol whose title changed meanwhile: merged, no conflict', async (t) => {
      const end = await json(['patrols', 'end', String(office.serial)]);
      clock.advance(1000);
      const theirs = await s.json(`${P}/${office.id}`, send('PATCH', { title: 'Renamed in the office' }, token));
      t.equal(theirs.status, 200);
      const push = await cli.json(['push']);
      t.equal(push.code, 0, push.stderr);
      t.match(push.body, { sent: 1, merged: 1, conflicts: [] });
      const after = (await s.json(`${P}/${office.id}`, { token })).body;
      t.ok(after.patrol_segments[0].time_range.end_time, 'mine applied');
      t.equal(after.title, 'Renamed in the office', 'their other change kept');
      t.equal((await outboxOf(cli)).entries.find((e) => e.id === end.id)?.status, 'sent');
      t.equal((await outboxOf(cli)).counts.conflict, 0);
    });
  });
});
