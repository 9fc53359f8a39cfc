/**
 * `fieldops export` from the laptop's mirror, with no server at all (issue 27 item 7): tracks
 * recorded offline round-trip through GPX (import, export, re-import into a fresh mirror,
 * export again: the same points and times); events and subjects as pulled, in every format,
 * escaped and filtered; the summary, the usage errors and the output file's failures.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { parse as parseCsv } from 'csv-parse/sync';
import t, { type Test } from 'tap';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { pulledRow } from '../../sync/pull/pulled.js';
import { binPath } from '../helpers/cli.js';
import { cliEnv, type CliEnv } from '../helpers/cli-env.js';
import { gpxTrack, writeFile } from '../sync/offline-fixtures.js';

/** A CLI home with an empty mirror (as if synced once): no login, no server. */
async function offlineCli(t: Test): Promise<CliEnv> {
  const cli = cliEnv(t);
  const knex = await openMirrorDatabase(cli.mirror, { create: true });
  await knex!.destroy();
  return cli;
}

interface Fix {
  lat: number;
  lon: number;
  at: number;
  ele?: number | null;
}

/** Points of a GPX text, as xmldom reads them (any error fails the test). */
function gpxFixes(t: Test, text: string): Fix[] {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, message) => void (level !== 'warning' && errors.push(message)) }).parseFromString(text, 'text/xml');
  t.same(errors, [], 'the GPX is well-formed XML');
  return Array.from(doc.getElementsByTagName('trkpt')).map((p) => ({
    lat: Number(p.getAttribute('lat')),
    lon: Number(p.getAttribute('lon')),
    at: Date.parse(p.getElementsByTagName('time')[0]?.textContent ?? ''),
    ele: p.getElementsByTagName('ele')[0] ? Number(p.getElementsByTagName('ele')[0]!.textContent) : null,
  }));
}

t.test('tracks round-trip through GPX into a fresh mirror', async (t) => {
  const a = await offlineCli(t);
  const points = 120;
  const track = writeFile(a, 'track.gpx', gpxTrack(points));
  t.equal((await a.json(['observations', 'import', track, '--subject', 'Collar 7'])).code, 0);
  // A CSV with offsets and a second subject: times are instants, written back in UTC.
  const csv = writeFile(a, 'other.csv', 'recorded_at,latitude,longitude\n2026-11-02T07:00:00+03:00,-1.5,36.5\n2026-11-02T07:00:01.250+03:00,-1.51,36.51\n');
  t.equal((await a.json(['observations', 'import', csv, '--subject', 'Other'])).code, 0);

  const out = path.join(a.dir, 'out.gpx');
  const exported = await a.json(['export', 'tracks', '--format', 'gpx', '--output', out]);
  t.equal(exported.code, 0, exported.stderr);
  t.same(exported.body, { kind: 'tracks', format: 'gpx', written: points + 2, skipped: 0, tracks: 2, output: out });
  t.equal(fs.statSync(out).mode & 0o777, 0o600, 'positions readable by the owner only');
  const fixes = gpxFixes(t, fs.readFileSync(out, 'utf8'));
  t.equal(fixes.length, points + 2);
  t.same(fixes.slice(-2).map((f) => f.at), [Date.parse('2026-11-02T04:00:00Z'), Date.parse('2026-11-02T04:00:01.250Z')], 'offsets written as the same instants in UTC');

  // Each subject's track, re-imported into a fresh mirror, exported again: the same points and times.
  for (const subject of ['Collar 7', 'Other']) {
    const one = path.join(a.dir, `${subject}.gpx`);
    t.equal((await a.run(['export', 'tracks', '--format', 'gpx', '--subject', subject, '--output', one])).code, 0);
    const b = await offlineCli(t);
    const imported = await b.json(['observations', 'import', one, '--subject', subject]);
    t.equal(imported.code, 0, imported.stderr);
    const again = await b.run(['export', 'tracks', '--format', 'gpx']);
    t.equal(again.code, 0, again.stderr);
    const original = gpxFixes(t, fs.readFileSync(one, 'utf8'));
    t.ok(original.length > 0);
    t.same(gpxFixes(t, again.stdout), original, `${subject}: the same points, elevations and times after the round trip`);
    t.equal(again.stdout, fs.readFileSync(one, 'utf8'), 'byte for byte, the same file');
  }
  const csvAgain = parseCsv((await a.run(['export', 'tracks', '--subject', 'collar 7'])).stdout, { columns: true }) as Array<Record<string, string>>;
  t.equal(csvAgain.length, points, '--subject matches names without regard to case');
  t.match(csvAgain[0], { subject: 'Collar 7', source_type: 'gps-radio', recorded_at: '2026-11-01T06:00:00.000Z', latitude: '-1.2', longitude: '36.8', elevation: '1600', status: 'pending' });
  const since = await a.json(['export', 'tracks', '--since', '2026-11-01T06:01:00Z', '--until', '2026-11-02', '--output', path.join(a.dir, 's.csv')]);
  t.equal(since.body.written, points - 60, '--since and --until bound recorded_at');
});

t.test('events and subjects as pulled, in every format, escaped', async (t) => {
  const cli = await offlineCli(t);
  const knex = (await openMirrorDatabase(cli.mirror, { create: false }))!;
  const hostile = 'Fence, "cut" <here> & there\nsecond line';
  const events = [
    { id: '00000000-0000-4000-8000-000000000001', serial_number: 1, event_type: 'wildlife_sighting', title: hostile, time: '2026-11-01T06:00:00+00:00', state: 'new', priority: 100, location: { latitude: -1.2, longitude: 36.8 }, event_details: { species: 'lion' }, related_subjects: [{ id: 'a', name: 'Collar 7' }] },
    { id: '00000000-0000-4000-8000-000000000002', serial_number: 2, event_type: 'wildlife_sighting', title: null, time: '2026-11-02T06:00:00+00:00', state: 'active', priority: 200, location: null, event_details: {} },
    { id: '00000000-0000-4000-8000-000000000003', serial_number: 3, event_type: 'fence_damage', title: 'Gate', time: '2026-11-03T06:00:00+00:00', state: 'resolved', priority: 300, location: { latitude: -1.3, longitude: 36.9 }, event_details: {} },
  ];
  for (const e of events) await knex('pulled_events').insert(pulledRow('events', e.id, e, null, 1));
  const subjects = [
    { id: '10000000-0000-4000-8000-000000000001', name: 'Wanjiru <Kamau>', subject_type: 'person', subject_subtype: 'ranger', is_active: true, last_position_date: '2026-11-01T06:00:00+00:00', last_position: { type: 'Feature', geometry: { type: 'Point', coordinates: [36.8, -1.2] } } },
    { id: '10000000-0000-4000-8000-000000000002', name: 'Tembo', subject_type: 'wildlife', subject_subtype: 'elephant', is_active: true, last_position_date: null, last_position: null },
  ];
  for (const s of subjects) await knex('pulled_subjects').insert(pulledRow('subjects', s.id, s, null, 1));
  await knex.destroy();

  const csv = await cli.run(['export', 'events']);
  t.equal(csv.code, 0, csv.stderr);
  const rows = parseCsv(csv.stdout, { columns: true }) as Array<Record<string, string>>;
  t.equal(rows.length, 3);
  t.equal(rows[0]!.title, hostile, 'commas, quotes and line breaks survive the CSV');
  t.same(JSON.parse(rows[0]!.event_details!), { species: 'lion' });
  t.match(csv.stderr, /fieldops export events: 3 events written to standard output/);

  const geo = JSON.parse((await cli.run(['export', 'events', '--format', 'geojson'])).stdout);
  t.equal(geo.type, 'FeatureCollection');
  t.same(geo.features.map((f: any) => f.geometry?.coordinates ?? null), [[36.8, -1.2], null, [36.9, -1.3]], 'GeoJSON keeps the event without a location (geometry null)');
  t.equal(geo.features[0].properties.title, hostile);

  for (const format of ['kml', 'gpx']) {
    const out = path.join(cli.dir, `events.${format}`);
    const result = await cli.json(['export', 'events', '--format', format, '--output', out]);
    t.match(result.body, { written: 2, skipped: 1 }, `${format}: the event without a location skipped and counted`);
    const errors: string[] = [];
    const doc = new DOMParser({ onError: (level, message) => void (level !== 'warning' && errors.push(message)) }).parseFromString(fs.readFileSync(out, 'utf8'), 'text/xml');
    t.same(errors, [], `${format}: well-formed`);
    const names = Array.from(doc.getElementsByTagName('name')).map((n) => n.textContent);
    t.ok(names.includes(hostile), `${format}: the hostile title escaped and read back as written`);
  }

  t.same((parseCsv((await cli.run(['export', 'events', '--type', 'fence_damage'])).stdout, { columns: true }) as any[]).map((r) => r.serial_number), ['3'], '--type');
  t.same((parseCsv((await cli.run(['export', 'events', '--since', '2026-11-02', '--until', '2026-11-03'])).stdout, { columns: true }) as any[]).map((r) => r.serial_number), ['2'], '--since/--until');
  t.same((parseCsv((await cli.run(['export', 'events', '--subject', 'collar 7'])).stdout, { columns: true }) as any[]).map((r) => r.serial_number), ['1'], '--subject: events that name it');

  const subjectCsv = parseCsv((await cli.run(['export', 'subjects'])).stdout, { columns: true }) as Array<Record<string, string>>;
  t.same(subjectCsv.map((s) => [s.name, s.subject_subtype, s.is_active, s.latitude]), [['Tembo', 'elephant', 'true', ''], ['Wanjiru <Kamau>', 'ranger', 'true', '-1.2']]);
  const kml = await cli.run(['export', 'subjects', '--format', 'kml', '--type', 'ranger']);
  t.match(kml.stdout, /<Placemark><name>Wanjiru &lt;Kamau&gt;<\/name>/);
  t.notMatch(kml.stdout, /Tembo/);
});

t.test('usage and output failures', async (t) => {
  const cli = await offlineCli(t);
  const json = await cli.run(['export', 'tracks', '--json']);
  t.equal(json.code, 2);
  t.match(json.stderr, /--json prints the summary[\s\S]*hint: add --output FILE/);
  t.equal((await cli.run(['export', 'tracks', '--since', 'yesterday'])).code, 2);
  t.equal((await cli.run(['export', 'patrols'])).code, 2);
  const missing = await cli.run(['export', 'events', '--output', path.join(cli.dir, 'no', 'such', 'out.csv')]);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /the folder .* does not exist\nhint: create the folder first/);
  const empty = await cli.json(['export', 'events', '--format', 'geojson', '--output', path.join(cli.dir, 'e.json')]);
  t.equal(empty.code, 0);
  t.same(JSON.parse(fs.readFileSync(path.join(cli.dir, 'e.json'), 'utf8')), { type: 'FeatureCollection', features: [] }, 'an empty mirror: an empty, valid file');
  t.same(fs.readdirSync(cli.dir).filter((f) => f.endsWith('.part')), [], 'no partial file left behind');
  const none = await cliEnv(t).run(['export', 'events']);
  t.equal(none.code, 1);
  t.match(none.stderr, /no mirror yet/);
});

t.test('a large export streams, and stops quietly on a closed pipe', async (t) => {
  const cli = await offlineCli(t);
  const knex = (await openMirrorDatabase(cli.mirror, { create: false }))!;
  const points = 40_000;
  const rows = Array.from({ length: points }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, kind: 'observation', target: null, status: i % 2 ? 'sent' : 'pending', recorded_at: new Date().toISOString(),
    body: JSON.stringify({ sourceType: 'gps-radio', providerKey: 'fieldops-cli', observation: { location: { lat: -1 - i / 1e6, lon: 36 + i / 1e6 }, recorded_at: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(), manufacturer_id: `collar-${i % 3}`, source_type: 'gps-radio', subject_name: `Collar ${i % 3}`, additional: {} } }),
  }));
  await knex.transaction(async (trx) => {
    for (let i = 0; i < rows.length; i += 500) await trx('outbox').insert(rows.slice(i, i + 500));
  });
  await knex.destroy();
  const out = path.join(cli.dir, 'all.gpx');
  const all = await cli.json(['export', 'tracks', '--format', 'gpx', '--output', out], { env: {} });
  t.match(all.body, { written: points, tracks: 3 }, 'queued and sent observations, three tracks');
  t.equal(gpxFixes(t, fs.readFileSync(out, 'utf8')).length, points);

  // `fieldops export tracks | head -c 100`: the reader goes away after the first chunk.
  const child = spawn(process.execPath, [binPath, 'export', 'tracks', '--format', 'gpx'], { env: { PATH: process.env.PATH ?? '', ...cli.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise((resolve) => child.on('close', resolve));
  t.equal(code, 0, 'exit 0');
  t.equal(stderr, '', 'no error and no stack on a closed pipe');
});
