/**
 * Server tracks in the mirror (issue 27): `fieldops sync` pulls the fixes of the subjects the
 * user can see from the tracking data export, incrementally (a second sync pulls only the new
 * ones), and `fieldops export tracks` writes them together with the laptop's own observations,
 * a pushed one that came back written once (both databases).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import t from 'tap';
import { dialect, jsonBody, startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { gpxTrack, syncedCli, writeFile } from '../sync/offline-fixtures.js';

const INTAKE = '/api/v1.0/sensors/gps-radio/acme-collars/status';
const OBSERVATIONS = '/api/v1.0/observations';
/** Fixes an hour ago, a second apart: inside the first pull's window (16 days) whenever the test runs. */
const START = Date.now() - 3600_000;
const atSecond = (i: number) => new Date(START + i * 1000).toISOString();

t.test(`sync pulls server tracks; export writes them once (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  // Two collars of one elephant, through the sensor intake (it makes the sources, the subject and the assignments).
  const intake = await s.json(INTAKE, jsonBody([
    ...[0, 1, 2, 3, 4].map((i) => ({ manufacturer_id: 'collar-a', subject_name: 'Tembo', recorded_at: atSecond(i), location: { lat: -1.2 - i / 1000, lon: 36.8 } })),
    ...[0, 1, 2].map((i) => ({ manufacturer_id: 'collar-b', subject_name: 'Tembo', recorded_at: atSecond(i), location: { lat: -1.3, lon: 36.9 + i / 1000 } })),
  ], { token }));
  t.ok(intake.status < 300, `intake: ${intake.status}`);

  const cli = await syncedCli(t, s.url);
  // The laptop's own track, queued before the sync that pushes it (and then pulls it back).
  const gpx = writeFile(cli, 'walk.gpx', gpxTrack(4, START + 100_000));
  t.equal((await cli.json(['observations', 'import', gpx, '--subject', 'Walker', '--manufacturer-id', 'laptop-walk'])).code, 0);

  const first = await cli.json(['sync', '--records']);
  t.equal(first.code, 0, first.stderr);
  t.match(first.body.push, { sent: 4 }, 'the laptop\'s observations were pushed first');
  t.match(first.body.tracks, { pulled: 5 + 3 + 4, skipped: null, capped: false }, 'every fix of the visible subjects pulled, the pushed ones included');

  // New fixes through POST observations (the source exists), and one repeat of a known instant.
  const posted = await s.json(OBSERVATIONS, jsonBody([
    { source: 'collar-a', recorded_at: atSecond(10), location: { lat: -1.25, lon: 36.8 } },
    { source: 'collar-a', recorded_at: atSecond(11), location: { lat: -1.26, lon: 36.8 } },
  ], { method: 'POST', token }));
  t.equal(posted.status, 201, JSON.stringify(posted.body));
  const second = await cli.json(['sync']);
  t.equal(second.code, 0, second.stderr);
  t.equal(second.body.tracks.pulled, 2, 'the second sync (records pulled once: every sync pulls) brings only the new fixes');
  const third = await cli.json(['sync']);
  t.equal(third.body.tracks.pulled, 0, 'nothing new: nothing pulled');

  const text = await cli.run(['sync']);
  t.match(text.stdout, /Tracks: 0 new fixes of 3 sources\./, 'the summary line names the sources');

  const exported = await cli.run(['export', 'tracks']);
  t.equal(exported.code, 0, exported.stderr);
  const rows = parseCsv(exported.stdout, { columns: true }) as Array<Record<string, string>>;
  const keys = rows.map((r) => `${r.source} ${Date.parse(r.recorded_at!)}`);
  t.equal(new Set(keys).size, keys.length, 'no fix twice (source and instant)');
  t.equal(rows.length, 5 + 2 + 3 + 4, 'the server\'s fixes, and the laptop\'s pushed track once');
  t.same([...new Set(rows.map((r) => r.subject))].sort(), ['Tembo', 'Walker']);
  t.ok(rows.filter((r) => r.source === 'laptop-walk').every((r) => r.status === 'server'), 'the pushed track is written as the server holds it');
  t.same(rows.filter((r) => r.source === 'collar-a').map((r) => Date.parse(r.recorded_at!)), [0, 1, 2, 3, 4, 10, 11].map((i) => Date.parse(atSecond(i))), 'a track in time order');

  // A point queued here and not pushed yet is exported too (status pending).
  const more = writeFile(cli, 'more.gpx', gpxTrack(1, START + 500_000));
  t.equal((await cli.json(['observations', 'import', more, '--subject', 'Walker', '--manufacturer-id', 'laptop-walk'])).code, 0);
  const after = parseCsv((await cli.run(['export', 'tracks', '--subject', 'walker'])).stdout, { columns: true }) as Array<Record<string, string>>;
  t.same(after.map((r) => r.status), ['server', 'server', 'server', 'server', 'pending']);
});

const METADATA = '/api/v1.0/trackingmetadata/export?format=json';

t.test(`a manufacturer id of another provider; re-attribution; what the user no longer sees (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  // acme-collars: 'shared-id' on Rival (the id the laptop will use under its own provider), collar-c on Kifaru, collar-d on Tembo.
  const intake = await s.json(INTAKE, jsonBody([
    ...[0, 1].map((i) => ({ manufacturer_id: 'shared-id', subject_name: 'Rival', recorded_at: atSecond(i), location: { lat: -1.1, lon: 36.7 } })),
    ...[0, 1, 2].map((i) => ({ manufacturer_id: 'collar-c', subject_name: 'Kifaru', recorded_at: atSecond(i), location: { lat: -1.4, lon: 36.6 } })),
    ...[0, 1].map((i) => ({ manufacturer_id: 'collar-d', subject_name: 'Tembo', recorded_at: atSecond(i), location: { lat: -1.5, lon: 36.5 } })),
    { manufacturer_id: 'collar-e', subject_name: 'Simba', recorded_at: atSecond(0), location: { lat: -1.6, lon: 36.4 } },
  ], { token }));
  t.ok(intake.status < 300, `intake: ${intake.status}`);
  const cli = await syncedCli(t, s.url);
  const first = await cli.json(['sync', '--records']);
  t.equal(first.code, 0, first.stderr);
  t.match(first.body.tracks, { pulled: 2 + 3 + 2 + 1, removed: 0 });

  // The laptop's own 'shared-id' (provider fieldops-cli), at Rival's instants, queued and not pushed.
  const gpx = writeFile(cli, 'shared.gpx', gpxTrack(2, START));
  t.equal((await cli.json(['observations', 'import', gpx, '--subject', 'Walker', '--manufacturer-id', 'shared-id'])).code, 0);
  const exported = parseCsv((await cli.run(['export', 'tracks'])).stdout, { columns: true }) as Array<Record<string, string>>;
  t.same(exported.filter((r) => r.subject === 'Walker').map((r) => r.status), ['pending', 'pending'], 'another provider\'s fixes of the same id do not hide the laptop\'s');
  t.equal(exported.filter((r) => r.subject === 'Rival').length, 2, 'nor the other way round');

  const subjects = (await s.json(METADATA, { token })).body as Array<{ id: string; name: string; sources: Array<{ id: string; manufacturer_id: string }> }>;
  const subject = (name: string) => subjects.find((x) => x.name === name)!;
  // Re-attribution: collar-d's assignment now says Simba wore it.
  const tembo = subject('Tembo');
  const collarD = tembo.sources.find((x) => x.manufacturer_id === 'collar-d')!;
  const assignments = await s.json(`/api/v1.0/subjectsources?sources=${collarD.id}`, { token });
  const list = (assignments.body.results ?? assignments.body.data?.results ?? assignments.body) as Array<{ id: string }>;
  t.equal(list.length, 1, JSON.stringify(assignments.body).slice(0, 200));
  t.equal((await s.json(`/api/v1.0/subjectsource/${list[0]!.id}`, jsonBody({ subject: subject('Simba').id }, { method: 'PATCH', token }))).status, 200);
  // No longer visible: Kifaru deleted on the server.
  t.ok((await s.request(`/api/v1.0/subject/${subject('Kifaru').id}`, { method: 'DELETE', token })).status < 300, 'Kifaru deleted');

  const second = await cli.json(['sync']);
  t.equal(second.code, 0, second.stderr);
  t.match(second.body.tracks, { removed: 3 + 2, pulled: 2 + 2 }, 'Kifaru\'s fixes and Tembo\'s old collar-d fixes deleted; collar-d pulled as Simba\'s, the laptop\'s track pushed and pulled');
  const after = parseCsv((await cli.run(['export', 'tracks'])).stdout, { columns: true }) as Array<Record<string, string>>;
  t.equal(after.filter((r) => r.subject === 'Kifaru').length, 0, 'a deleted subject\'s fixes left the laptop');
  t.same(after.filter((r) => r.source === 'collar-d').map((r) => r.subject), ['Simba', 'Simba'], 'the re-attributed fixes are Simba\'s');
  t.same(after.filter((r) => r.subject === 'Walker').map((r) => r.status), ['server', 'server'], 'the laptop\'s track, pushed, written once');
  const text = await cli.run(['sync']);
  t.match(text.stdout, /Tracks: 0 new fixes of \d+ sources\./, 'nothing more removed: no removal in the summary');
});
