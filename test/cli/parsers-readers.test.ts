/**
 * The import readers on maintained parsers (issue 27 item 7): csv-parse and saxes (streaming, no
 * tree) keep every finding at FILE:line:column, and hostile files stay bounded: entities never
 * expanded (billion laughs), deep nesting, a huge attribute, a file over the size limit, an
 * unclosed quote. The readers
 * directly, then the real binary (no server: an empty mirror).
 */
import fs from 'node:fs';
import t, { type Test } from 'tap';
import { CsvSyntaxError, parseCsv } from '../../cli/record/csv.js';
import { MAX_GPX_BYTES, parseGpx } from '../../cli/record/gpx.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { cliEnv } from '../helpers/cli-env.js';
import { writeFile } from '../sync/offline-fixtures.js';

t.test('CSV: the line each record starts on, whatever the line breaks', async (t) => {
  const records = parseCsv('\ufefftime,notes\n1,"two\nlines"\n\n3,x\r\n4,"crlf\r\ninside"\r\n\r\n5,"a ""quote"""\r6,last');
  t.same(records, [
    { line: 1, fields: ['time', 'notes'] },
    { line: 2, fields: ['1', 'two\nlines'] },
    { line: 5, fields: ['3', 'x'] },
    { line: 6, fields: ['4', 'crlf\r\ninside'] },
    { line: 9, fields: ['5', 'a "quote"'] },
    { line: 10, fields: ['6', 'last'] },
  ]);
  t.same(parseCsv(''), []);
  const failure = (text: string) => {
    try {
      parseCsv(text);
    } catch (error) {
      if (error instanceof CsvSyntaxError) return { message: error.message, line: error.line, column: error.column };
      throw error;
    }
    return null;
  };
  t.same(failure('a,b\n\n1,"open\n2,3\n'), { message: 'a quoted cell is not closed', line: 3, column: 2 }, 'an unclosed quote: the line its record starts on');
  t.match(failure('a,b\n1,x"y\n'), { line: 2, column: 2 });
  t.match(failure(`a\n"${'x'.repeat(1024 * 1024 + 10)}"\n`), { message: /larger than 1 MiB/, line: 2 }, 'one record is bounded');
});

t.test('GPX: points with their line and column; hostile XML bounded', async (t) => {
  const { points, problems } = parseGpx('<?xml version="1.0"?>\n<gpx>\n  <trk><trkseg><trkpt lat="-1.5" lon="36"><ele>12</ele><time>2026-01-01T00:00:00Z</time></trkpt>\n<trkpt lat="x" lon="1"/></trkseg></trk></gpx>');
  t.same(problems, []);
  t.same(points, [
    { line: 3, column: 16, latitude: -1.5, longitude: 36, time: '2026-01-01T00:00:00Z', elevation: 12 },
    { line: 4, column: 1, latitude: NaN, longitude: 1, time: null, elevation: null },
  ]);

  const laughs = ['<?xml version="1.0"?>', '<!DOCTYPE lolz [<!ENTITY lol "lol">'];
  for (let i = 1; i < 10; i++) laughs.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
  laughs.push(']>', '<gpx><wpt lat="1" lon="2"><name>&lol9;</name></wpt></gpx>');
  const started = Date.now();
  const bomb = parseGpx(laughs.join('\n'));
  t.ok(Date.now() - started < 2000, 'a billion laughs costs its own size: entities are not expanded');
  t.same(bomb, { points: [], problems: [{ line: 13, column: 33, message: 'not valid XML: entity not found:&lol9; (entities declared in a DOCTYPE are not expanded)' }] }, 'at the reference');

  const depth = 50_000;
  const deep = parseGpx(`<gpx>${'<a>'.repeat(depth)}<trkpt lat="1" lon="2"><time>2026-01-01T00:00:00Z</time></trkpt>${'</a>'.repeat(depth)}</gpx>`);
  t.same(deep.problems, []);
  t.equal(deep.points.length, 1, 'deep nesting walked without recursion');
  t.match(deep.points[0], { line: 1, column: 6 + 3 * depth, time: '2026-01-01T00:00:00Z' });

  t.match(parseGpx('<gpx>\n<trkpt lat="1" lon="2"></trk></gpx>').problems, [{ line: 2, column: 24, message: 'not valid XML: Opening and ending tag mismatch: "trkpt" != "trk"' }]);
  t.same(parseGpx('').problems, [{ line: 1, column: 1, message: 'not valid XML: missing root element' }]);
});

t.test('GPX on saxes: findings at the offending character; DOCTYPE; huge attribute', async (t) => {
  const at = (text: string) => parseGpx(text).problems.map((p) => `${p.line}:${p.column} ${p.message}`);
  t.same(at('<gpx>\n<trkpt lat="1" lon="2">\n</gpx>\n'), ['3:1 not valid XML: Opening and ending tag mismatch: "trkpt" != "gpx"'], 'the close tag that does not match');
  t.same(at('<gpx>\r\n<trkpt lat="1" lon="2"/>\r<trkpt lat="1 lon="2"/></gpx>'), ['3:20 not valid XML: disallowed character in attribute name.'], 'CRLF and a lone CR are one line end each');
  t.same(at('<gpx><trkpt lat="1" lon="2"/>\n  <bad attr=x/></gpx>'), ['2:13 not valid XML: unquoted attribute value.']);
  t.same(at('<gpx><trkpt lat="1" lon="2"/></gpx>\n<gpx/>'), ['2:1 not valid XML: documents may contain only one root.']);
  t.same(at('<gpx><trkpt lat="1" lon="2">&#0;</trkpt></gpx>'), ['1:29 not valid XML: malformed character entity.']);
  t.equal(parseGpx('<gpx>\n<trkpt lat="1" lon="2"></trk></gpx>').points.length, 0, 'a file with an error yields no points');

  // A DOCTYPE is kept as text: declared entities unused are harmless, used ones are refused,
  // an external DTD is never fetched.
  const declared = parseGpx('<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY a "aaaa">]>\n<gpx><wpt lat="1" lon="2"/></gpx>');
  t.same(declared, { points: [{ line: 3, column: 6, latitude: 1, longitude: 2, time: null, elevation: null }], problems: [] });
  t.same(at('<!DOCTYPE g [<!ENTITY a "aaaa">]>\n<gpx><wpt lat="1" lon="2"><time>&a;</time></wpt></gpx>'), ['2:33 not valid XML: entity not found:&a; (entities declared in a DOCTYPE are not expanded)']);
  t.same(at('<!DOCTYPE g [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<gpx><wpt lat="1" lon="2">&x;</wpt></gpx>'), ['2:27 not valid XML: entity not found:&x; (entities declared in a DOCTYPE are not expanded)'], 'no external entity is read');
  t.equal(parseGpx('<!DOCTYPE gpx SYSTEM "http://127.0.0.1:9/gpx.dtd"><gpx><wpt lat="1" lon="2"/></gpx>').points.length, 1);

  // The predefined entities, character references, CDATA, prefixes and a tag split over lines.
  const mixed = parseGpx('<g:gpx xmlns:g="x">\n<g:trkpt\n lat=" 1 " lon="2"><g:time><![CDATA[2026-01-01T00:00:00Z]]></g:time><ele>&#49;&#x32;</ele><name>&amp;</name></g:trkpt><rtept lat="3" lon="4"><time/><ele>high</ele></rtept></g:gpx>');
  t.same(mixed, {
    points: [
      { line: 2, column: 1, latitude: 1, longitude: 2, time: '2026-01-01T00:00:00Z', elevation: 12 },
      { line: 3, column: 119, latitude: 3, longitude: 4, time: null, elevation: null },
    ],
    problems: [],
  });

  const huge = 15 * 1024 * 1024;
  const started = Date.now();
  const wide = parseGpx(`<gpx>\n<wpt lat="1" lon="2" note="${'x'.repeat(huge)}"/><wpt lat="3" lon="4"/></gpx>`);
  t.ok(Date.now() - started < 5000, 'a huge attribute is read in linear time');
  t.same(wide.points.map((p) => `${p.line}:${p.column}`), ['2:1', `2:${huge + 31}`]);
});

async function offlineCli(t: Test) {
  const cli = cliEnv(t);
  await (await openMirrorDatabase(cli.mirror, { create: true }))!.destroy();
  return cli;
}

t.test('observations import reports FILE:line:column from both readers', async (t) => {
  const cli = await offlineCli(t);
  const gpx = writeFile(cli, 'points.gpx', '<gpx><trk><trkseg>\n  <trkpt lat="-1.2" lon="36.8"><time>2026-11-02T07:00:00Z</time></trkpt>\n    <trkpt lat="95" lon="36.8"><time>2026-11-02T07:00:01</time></trkpt>\n</trkseg></trk></gpx>\n');
  const invalid = await cli.run(['observations', 'import', gpx, '--subject', 'Collar 7']);
  t.equal(invalid.code, 1);
  t.match(invalid.stdout, /3:5\s+error\s+point 2: recorded_at "2026-11-02T07:00:01" is not an ISO 8601 date-time with an offset/);
  t.match(invalid.stdout, /3:5\s+error\s+point 2: latitude is -90\.\.90/);

  const bomb = writeFile(cli, 'bomb.gpx', '<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<gpx><trk><trkseg><trkpt lat="1" lon="2"><name>&b;</name><time>2026-11-02T07:00:00Z</time></trkpt></trkseg></trk></gpx>\n');
  const refused = await cli.json(['observations', 'import', bomb, '--subject', 'Collar 7']);
  t.equal(refused.code, 1);
  t.match(refused.body, { queued: 0, findings: [{ code: 'invalid_xml', line: 3, column: 48, message: /entity not found:&b;/ }] });
  t.match(refused.stderr, /cannot be read \(1 problem\); nothing queued/);

  const broken = writeFile(cli, 'broken.gpx', '<gpx>\n<trkpt lat="1" lon="2">\n</gpx>\n');
  t.match((await cli.run(['observations', 'import', broken, '--subject', 'Collar 7'])).stdout, /3:1\s+error\s+not valid XML: Opening and ending tag mismatch: "trkpt" != "gpx"/);

  const csv = writeFile(cli, 'open.csv', 'recorded_at,latitude,longitude\n2026-11-02T07:00:00Z,-1.2,36.8\n2026-11-02T07:00:01Z,-1.2,"36.8\n');
  const unclosed = await cli.run(['observations', 'import', csv, '--subject', 'Collar 7']);
  t.equal(unclosed.code, 1);
  t.match(unclosed.stdout, /3:3\s+error\s+not valid CSV: a quoted cell is not closed/);

  const big = `${cli.dir}/big.gpx`;
  fs.writeFileSync(big, '');
  fs.truncateSync(big, MAX_GPX_BYTES + 1);
  const tooBig = await cli.run(['observations', 'import', big, '--subject', 'Collar 7']);
  t.equal(tooBig.code, 2);
  t.match(tooBig.stderr, /larger than 16 MiB\nhint: split the track/);
});
