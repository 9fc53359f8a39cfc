/**
 * The track pull's bounds and its answers to servers that cannot give tracks, against a mirror
 * on disk and a transport of our own (the network is the process boundary mocked here): the
 * first pull's window, pages that follow one source in time order, the cap per sync and the
 * resume after it, a 404 (an older server) and a 403 (no export_observation) skipped with a
 * note, a 500 failing; a fix re-attributed on the server takes its new subject in the mirror;
 * what the user no longer sees (a subject's source not listed any more, a 403) is deleted. The
 * sync against a real server is sync-tracks.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Knex } from 'knex';
import type { Transport, TransportRequest } from '../../sync/http.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { WINDOW_DAYS, pullTracks } from '../../sync/pull/tracks.js';

const SERVER = 'http://tracks.test';
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const DAY = 86_400_000;

async function mirror(t: Test): Promise<Knex> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-tracks-'));
  const knex = (await openMirrorDatabase(path.join(dir, 'm.sqlite3'), { create: true }))!;
  t.teardown(async () => {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return knex;
}

interface Fix {
  subject: string;
  source: string;
  at: number;
}

/**
 * A server of fixes answering the two exports as the real one does (since inclusive, max_records,
 * time order); `state.status` (other than 200) answers every request with it.
 */
function fakeServer(fixes: Fix[]) {
  const requests: URL[] = [];
  const state = { status: 200 };
  const json = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(body)) });
  const transport: Transport = async (request: TransportRequest) => {
    const url = new URL(request.url);
    requests.push(url);
    if (state.status !== 200) return json(state.status, { status: { code: state.status, detail: 'no' } });
    if (url.pathname === '/api/v1.0/trackingmetadata/export') {
      const subjects = [...new Set(fixes.map((f) => f.subject))];
      return json(200, subjects.map((id) => ({ id, name: `name of ${id}`, sources: [...new Set(fixes.filter((f) => f.subject === id).map((f) => f.source))].map((s) => ({ id: s, manufacturer_id: `m-${s}` })) })));
    }
    const since = Date.parse(url.searchParams.get('since')!);
    const rows = fixes
      .filter((f) => f.subject === url.searchParams.get('subject_id') && f.source === url.searchParams.get('source_id') && f.at >= since)
      .sort((a, b) => a.at - b.at)
      .slice(0, Number(url.searchParams.get('max_records')))
      .map((f) => ({ subject_id: f.subject, subject_name: `name of ${f.subject}`, source_id: f.source, manufacturer_id: `m-${f.source}`, provider: 'acme', source_type: 'gps-radio', recorded_at: new Date(f.at).toISOString(), latitude: -1, longitude: 36, observation_details: { elevation: 1500 } }));
    return json(200, rows);
  };
  return { transport, requests, state };
}

const count = async (knex: Knex) => Number((await knex('pulled_track_points').count({ n: '*' }).first())!.n);

t.test('window, pages, cap and resume', async (t) => {
  const knex = await mirror(t);
  const old = { subject: 's1', source: 'a', at: NOW - (WINDOW_DAYS + 1) * DAY };
  const fixes: Fix[] = [old];
  for (let i = 0; i < 6000; i++) fixes.push({ subject: 's1', source: 'a', at: NOW - DAY + i * 1000 });
  for (let i = 0; i < 3000; i++) fixes.push({ subject: 's2', source: 'b', at: NOW - DAY + i * 1000 });
  const server = fakeServer(fixes);
  const options = { transport: server.transport, server: SERVER, knex, now: () => NOW };

  const first = await pullTracks({ ...options, maxPoints: 7000 });
  t.match(first, { pulled: 7000, capped: true, skipped: null, sources: 2 }, 'the cap stops the first pull');
  t.equal(await count(knex), 7000);
  t.equal(server.requests[1]!.searchParams.get('since'), new Date(NOW - WINDOW_DAYS * DAY).toISOString(), 'a source never pulled starts the window back');
  t.ok(server.requests.slice(1).every((u) => Number(u.searchParams.get('max_records')) <= 5001), 'no response larger than a page');
  t.notOk(await knex('pulled_track_points').where({ recorded_ms: old.at }).first(), 'a fix before the window is not pulled');

  server.requests.length = 0;
  const second = await pullTracks(options);
  t.match(second, { pulled: 2000, capped: false }, 'the next sync brings the rest');
  t.equal(await count(knex), 9000);
  const sinceB = server.requests.find((u) => u.searchParams.get('source_id') === 'b')!.searchParams.get('since');
  t.equal(sinceB, new Date(NOW - DAY + 999 * 1000).toISOString(), 'source b resumes at its newest fix pulled');

  fixes.push({ subject: 's1', source: 'a', at: NOW + 5000 });
  const third = await pullTracks(options);
  t.match(third, { pulled: 1, received: 3 }, 'one new fix (each source repeats the fix at its since, ignored)');
  t.match(await knex('pulled_track_sources').orderBy('source_id').select('source_id', 'newest_ms'), [{ source_id: 'a', newest_ms: NOW + 5000 }, { source_id: 'b', newest_ms: NOW - DAY + 2999 * 1000 }]);
  t.match(await knex('pulled_track_points').first(), { manufacturer_id: 'm-a', subject_name: 'name of s1', elevation: 1500 });
});

t.test('a server that cannot give tracks', async (t) => {
  const knex = await mirror(t);
  const answering = (status: number): Transport => async () => ({ status, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode('{"status":{"code":' + status + ',"detail":"no"}}') });
  const options = { server: SERVER, knex, now: () => NOW };
  t.match(await pullTracks({ ...options, transport: answering(404) }), { pulled: 0, skipped: /does not offer tracking data exports/ }, '404: skipped with a note');
  t.match(await pullTracks({ ...options, transport: answering(403) }), { pulled: 0, skipped: /export_observation/ }, '403: skipped with a note');
  await t.rejects(pullTracks({ ...options, transport: answering(500) }), /failed with HTTP 500/, 'a failing server fails the step');
});

t.test('another user on the mirror: the pulled tracks are deleted with the rest of what was pulled', async (t) => {
  const knex = await mirror(t);
  const { adoptIdentity } = await import('../../sync/mirror/identity.js');
  await adoptIdentity(knex, { server: SERVER, userId: 'u-alice', username: 'alice' });
  await pullTracks({ transport: fakeServer([{ subject: 's1', source: 'a', at: NOW - 1000 }]).transport, server: SERVER, knex, now: () => NOW });
  t.equal(await count(knex), 1);
  await adoptIdentity(knex, { server: SERVER, userId: 'u-alice', username: 'alice' });
  t.equal(await count(knex), 1, 'the same user keeps them');
  t.equal((await adoptIdentity(knex, { server: SERVER, userId: 'u-bob', username: 'bob' })).reset, true);
  t.equal(await count(knex), 0, 'alice\'s tracks are not left for bob');
  t.equal(Number((await knex('pulled_track_sources').count({ n: '*' }).first())!.n), 0, 'nor her checkpoints');
});

t.test('a fix re-attributed on the server takes its new subject in the mirror', async (t) => {
  const knex = await mirror(t);
  // s1 wore collar a; from NOW - 5000 on, the server says s2 did (an assignment changed there).
  const fixes: Fix[] = [0, 1, 2, 3].map((i) => ({ subject: 's1', source: 'a', at: NOW - 10_000 + i * 2000 }));
  const server = fakeServer(fixes);
  const options = { transport: server.transport, server: SERVER, knex, now: () => NOW };
  t.match(await pullTracks(options), { pulled: 4 });
  for (const fix of fixes) if (fix.at >= NOW - 5000) fix.subject = 's2';
  const again = await pullTracks(options);
  t.match(again, { pulled: 0, removed: 0 }, 'nothing new: the held fixes were re-attributed, not added');
  const rows = await knex('pulled_track_points').orderBy('recorded_ms').select('subject_id', 'subject_name');
  t.same(rows.map((r) => r.subject_id), ['s1', 's1', 's1', 's2'], 'the fix the server now gives s2 is s2\'s');
  t.equal(rows[3]!.subject_name, 'name of s2', 'with its name');
});

t.test('what the user no longer sees is deleted from the mirror', async (t) => {
  const knex = await mirror(t);
  const fixes: Fix[] = [
    ...[0, 1, 2].map((i) => ({ subject: 's1', source: 'a', at: NOW - 10_000 + i * 1000 })),
    ...[0, 1].map((i) => ({ subject: 's2', source: 'b', at: NOW - 10_000 + i * 1000 })),
  ];
  const server = fakeServer(fixes);
  const options = { transport: server.transport, server: SERVER, knex, now: () => NOW };
  t.match(await pullTracks(options), { pulled: 5, removed: 0 });
  // s2 (or its source b) is no longer in the user's listing.
  fixes.splice(3, 2);
  const second = await pullTracks(options);
  t.match(second, { pulled: 0, removed: 2, sources: 1 }, 'its two fixes are deleted');
  t.same((await knex('pulled_track_points').distinct('subject_id')).map((r) => r.subject_id), ['s1'], 's1\'s fixes stay');
  t.same((await knex('pulled_track_sources').select('source_id')).map((r) => r.source_id), ['a'], 'and so does only its checkpoint');

  server.state.status = 403;
  const denied = await pullTracks(options);
  t.match(denied, { pulled: 0, removed: 3, skipped: /export_observation.*the 3 fixes pulled before were deleted from this laptop/ }, 'a 403 deletes every pulled fix, and says so');
  t.equal(await count(knex), 0);
  t.equal(Number((await knex('pulled_track_sources').count({ n: '*' }).first())!.n), 0, 'and every checkpoint');
});
