/**
 * KML input (issue 27): `fieldops observations import` reads a Placemark's Point (at its
 * TimeStamp), LineString (points without times, each reported) and gx:Track, streamed with
 * saxes; hostile files cost their own size (no entity expansion, nesting on a stack, the GPX
 * reader's size limit); a KML written by `fieldops export tracks --format kml` imports back with
 * the same points and times (a track long enough to be cut into several placemarks).
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { MAX_KML_BYTES, parseKml } from '../../cli/record/kml.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { cliEnv } from '../helpers/cli-env.js';
import { gpxTrack, writeFile } from '../sync/offline-fixtures.js';

const KML = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>\n${body}</Document></kml>\n`;

async function offlineCli(t: Test) {
  const cli = cliEnv(t);
  await (await openMirrorDatabase(cli.mirror, { create: true }))!.destroy();
  return cli;
}

t.test('the KML reader: points, line strings, tracks, places', async (t) => {
  const doc = KML(
    '<Placemark><TimeStamp><when>2026-11-01T06:00:00Z</when></TimeStamp><Point><coordinates> 36.8,-1.2,1600 </coordinates></Point></Placemark>\n' +
      '<Placemark><LineString><coordinates>\n  36.8,-1.2 36.9,-1.3,5\n  36.95, -1.35</coordinates></LineString></Placemark>\n' +
      '<Placemark><gx:MultiTrack><gx:Track><when>2026-11-01T06:00:01Z</when><when>2026-11-01T06:00:02Z</when><gx:coord>36.1 -1.1 10</gx:coord><gx:coord>36.2 -1.2</gx:coord></gx:Track></gx:MultiTrack></Placemark>\n' +
      '<Placemark><gx:Track><when>2026-11-01T06:00:02Z</when><gx:coord>36.2 -1.2</gx:coord><gx:coord>36.3 x</gx:coord></gx:Track></Placemark>\n',
  );
  const { points, problems } = parseKml(doc);
  t.same(problems, []);
  t.same(points.map((p) => [p.line, p.column, p.longitude, p.latitude, p.elevation, p.time]), [
    // A tuple of a plain <coordinates> at its own place; a gx:coord at its element's.
    [3, 89, 36.8, -1.2, 1600, '2026-11-01T06:00:00Z'],
    [5, 3, 36.8, -1.2, null, null],
    [5, 13, 36.9, -1.3, 5, null],
    [6, 3, 36.95, -1.35, null, null],
    [7, 103, 36.1, -1.1, 10, '2026-11-01T06:00:01Z'],
    [7, 136, 36.2, -1.2, null, '2026-11-01T06:00:02Z'],
    // The repeat of the point before (a long track's joint) is read once; a coord without a when has no time.
    [8, 85, 36.3, NaN, null, null],
  ]);
  t.same(parseKml('<kml><constructor><__proto__><Placemark><toString/></Placemark></__proto__></constructor></kml>'), { points: [], problems: [] }, 'element names are data, not keys');
  t.same(parseKml('<kml><Placemark>\n<Point><coordinates>1,2</coordinates></Placemark></kml>').problems, [{ line: 2, column: 38, message: 'not valid XML: Opening and ending tag mismatch: "Point" != "Placemark"' }]);
});

t.test('hostile KML costs its own size', async (t) => {
  const bomb = '<?xml version="1.0"?>\n<!DOCTYPE kml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n<kml><Placemark><name>&c;</name><Point><coordinates>1,2</coordinates></Point></Placemark></kml>';
  t.match(parseKml(bomb), { points: [], problems: [{ line: 3, column: 23, message: /entity not found:&c; \(entities declared in a DOCTYPE are not expanded\)/ }] }, 'a DOCTYPE entity is not expanded');
  const external = '<!DOCTYPE kml [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<kml><Placemark><name>&x;</name></Placemark></kml>';
  t.match(parseKml(external).problems, [{ line: 2, message: /entity not found:&x;/ }], 'nor an external one');

  const depth = 200_000;
  let started = Date.now();
  const deep = parseKml(`<kml>${'<Folder>'.repeat(depth)}<Placemark><TimeStamp><when>2026-11-01T06:00:00Z</when></TimeStamp><Point><coordinates>1,2</coordinates></Point></Placemark>${'</Folder>'.repeat(depth)}</kml>`);
  t.same(deep.points.map((p) => [p.longitude, p.latitude]), [[1, 2]], 'deep nesting: no stack overflow, the point read');
  t.ok(Date.now() - started < 5000, 'in linear time');

  const huge = 15 * 1024 * 1024;
  started = Date.now();
  const wide = parseKml(`<kml>\n<Placemark id="${'x'.repeat(huge)}"><Point><coordinates>3,4</coordinates></Point></Placemark></kml>`);
  t.same(wide.points.map((p) => [p.line, p.longitude, p.latitude]), [[2, 3, 4]], 'a huge attribute is read');
  t.ok(Date.now() - started < 5000, 'in linear time');

  const cli = await offlineCli(t);
  const file = writeFile(cli, 'bomb.kml', bomb);
  const refused = await cli.json(['observations', 'import', file, '--subject', 'Collar 7']);
  t.equal(refused.code, 1);
  t.match(refused.body, { queued: 0, findings: [{ code: 'invalid_xml', line: 3, column: 23, message: /entity not found:&c;/ }] });
  const stylish = await cli.run(['observations', 'import', file, '--subject', 'Collar 7']);
  t.match(stylish.stdout, /bomb\.kml[\s\S]*3:23\s+error\s+not valid XML: entity not found/, 'FILE, then line:column');

  const big = path.join(cli.dir, 'big.kml');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, MAX_KML_BYTES + 1);
  const tooBig = await cli.run(['observations', 'import', big, '--subject', 'Collar 7']);
  t.equal(tooBig.code, 2);
  t.match(tooBig.stderr, /larger than 16 MiB\nhint: split the track/, 'the GPX reader\'s size limit');
});

t.test('observations import: KML findings at FILE:line:column', async (t) => {
  const cli = await offlineCli(t);
  const file = writeFile(cli, 'mixed.kml', KML(
    '<Placemark><TimeStamp><when>2026-11-02T07:00:00Z</when></TimeStamp><Point><coordinates>36.8,-1.2</coordinates></Point></Placemark>\n' +
      '<Placemark><LineString><coordinates>36.8,-1.2\n 36.9,95</coordinates></LineString></Placemark>\n',
  ));
  const invalid = await cli.json(['observations', 'import', file, '--subject', 'Collar 7']);
  t.equal(invalid.code, 1);
  t.match(invalid.body, { points: 3, valid: 1, invalid: 2, queued: 0 });
  t.match(invalid.body.findings.map((f: any) => `${f.line}:${f.column} ${f.message}`), [
    /^4:37 point 2: recorded_at "" is not/,
    /^5:2 point 3: recorded_at "" is not/,
    /^5:2 point 3: latitude is -90\.\.90/,
  ], 'each point of a line string at its own place');
  const skipped = await cli.json(['observations', 'import', file, '--subject', 'Collar 7', '--skip-invalid']);
  t.match(skipped.body, { valid: 1, queued: 1 });
  t.equal((await cli.run(['observations', 'import', file, '--subject', 'Collar 7', '--input-format', 'gpx'])).code, 1, '--input-format still chooses the reader');
});

t.test('a KML written by export tracks imports back: same points and times', async (t) => {
  const a = await offlineCli(t);
  // Longer than one placemark (TRACK_CHUNK, 5000): the joint point is written twice and read once.
  const points = 5003;
  t.equal((await a.json(['observations', 'import', writeFile(a, 'walk.gpx', gpxTrack(points)), '--subject', 'Collar 7'])).code, 0);
  const kml = path.join(a.dir, 'walk.kml');
  const exported = await a.json(['export', 'tracks', '--format', 'kml', '--output', kml]);
  t.equal(exported.code, 0, exported.stderr);
  t.match(fs.readFileSync(kml, 'utf8'), /<gx:Track><when>2026-11-01T06:00:00\.000Z<\/when>/, 'a gx:Track with a time per point');

  const b = await offlineCli(t);
  const imported = await b.json(['observations', 'import', kml, '--subject', 'Collar 7']);
  t.equal(imported.code, 0, imported.stderr);
  t.match(imported.body, { points, valid: points, invalid: 0, queued: points });
  const before = await a.run(['export', 'tracks', '--format', 'gpx']);
  const after = await b.run(['export', 'tracks', '--format', 'gpx']);
  t.equal(after.code, 0, after.stderr);
  t.equal((after.stdout.match(/<trkpt /g) ?? []).length, points);
  t.equal(after.stdout, before.stdout, 'the same points, elevations and times, byte for byte');
  t.equal((await b.json(['observations', 'import', kml, '--subject', 'Collar 7'])).body.queued, 0, 'importing it again queues nothing');
});
