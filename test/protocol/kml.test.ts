import t, { type Test } from 'tap';
import { DOMParser } from '@xmldom/xmldom';
import { escapeXml, kmlDocument, kmlDocumentAsync, kmlNetworkLinks, placemark } from '../../protocol/geo/kml.js';

/** Parses a document; any XML error fails (xmldom throws on fatal errors, reports the others). */
function parse(t: Test, text: string) {
  const problems: string[] = [];
  const doc = new DOMParser({ onError: (level, message) => problems.push(`${level}: ${message}`) }).parseFromString(text, 'application/xml');
  t.same(problems, [], 'well-formed');
  return doc;
}

const HOSTILE = 'Tembo & <Kiboko> "quoted" \'single\' ]]> \u0001\u0008\u000B\u001F end \u{1F418}';

t.test('escaping: the five entities, characters XML cannot hold dropped', async (t) => {
  t.equal(escapeXml('a & b < c > d " e \' f'), 'a &amp; b &lt; c &gt; d &quot; e &apos; f');
  t.equal(escapeXml('x\u0000y\u0007z\uFFFE'), 'xyz');
  t.equal(escapeXml('tab\tnew\nline\r'), 'tab\tnew\nline\r', 'tab, newline and return are XML characters');
  t.equal(escapeXml('&amp;'), '&amp;amp;', 'escaped once more: text is text');
});

t.test('a document of hostile names parses back to the same texts', async (t) => {
  const text = [...kmlDocument(HOSTILE, [{
    name: HOSTILE,
    placemarks: [
      { name: HOSTILE, description: HOSTILE, when: '2026-11-20T05:00:00.000+00:00', geometry: { type: 'Point', at: { longitude: 36.8, latitude: -1.3 } }, data: { [HOSTILE]: HOSTILE, n: 3, none: null } },
      { name: 'track', span: { begin: '2026-11-20T05:00:00.000+00:00', end: '2026-11-20T06:00:00.000+00:00' }, geometry: { type: 'LineString', points: [{ longitude: 1, latitude: 2 }, { longitude: 3.5, latitude: -4.25 }] } },
    ],
  }])].join('');
  const doc = parse(t, text);
  const clean = HOSTILE.replace(/[\u0001\u0008\u000B\u001F]/g, '');
  t.equal(doc.documentElement!.namespaceURI, 'http://www.opengis.net/kml/2.2');
  t.equal(doc.getElementsByTagName('name')[0]!.textContent, clean, 'the document name');
  const marks = doc.getElementsByTagName('Placemark');
  t.equal(marks.length, 2);
  t.equal(marks[0]!.getElementsByTagName('name')[0]!.textContent, clean);
  t.equal(marks[0]!.getElementsByTagName('description')[0]!.textContent, clean);
  const data = marks[0]!.getElementsByTagName('Data');
  t.same(Array.from(data).map((d) => [d.getAttribute('name'), d.getElementsByTagName('value')[0]!.textContent]), [[clean, clean], ['n', '3'], ['none', '']]);
  t.equal(marks[0]!.getElementsByTagName('coordinates')[0]!.textContent, '36.8,-1.3', 'longitude first');
  t.equal(marks[1]!.getElementsByTagName('coordinates')[0]!.textContent, '1,2 3.5,-4.25');
  t.equal(marks[1]!.getElementsByTagName('TimeSpan').length, 1);
});

t.test('one time primitive per placemark; coordinates must be numbers', async (t) => {
  const both = placemark({ name: 'x', when: '2026-11-20T05:00:00Z', span: { begin: 'a', end: 'b' }, geometry: { type: 'Point', at: { longitude: 0, latitude: 0 } } });
  t.notMatch(both, /TimeStamp/, 'a span wins');
  t.throws(() => placemark({ name: 'x', geometry: { type: 'Point', at: { longitude: Number.NaN, latitude: 0 } } }), RangeError);
});

t.test('the async document and network links are well-formed', async (t) => {
  async function* folders() {
    yield { name: 'one', placemarks: [] };
    yield { name: 'two & three', placemarks: [{ name: 'p', geometry: { type: 'Point' as const, at: { longitude: 1, latitude: 1 } } }] };
  }
  let text = '';
  for await (const piece of kmlDocumentAsync('feed', folders())) text += piece;
  const doc = parse(t, text);
  t.same(Array.from(doc.getElementsByTagName('Folder')).map((f) => f.getElementsByTagName('name')[0]!.textContent), ['one', 'two & three']);

  const links = parse(t, kmlNetworkLinks('root', [{ name: 'Subjects', href: 'https://h.example/api/v1.0/subjects/kml?start=a&end=b', refreshSeconds: 300 }]));
  t.equal(links.getElementsByTagName('href')[0]!.textContent, 'https://h.example/api/v1.0/subjects/kml?start=a&end=b', 'the & of a URL round-trips');
  t.equal(links.getElementsByTagName('refreshInterval')[0]!.textContent, '300');
});
