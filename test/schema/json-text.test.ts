import t from 'tap';
import { createPointerLocator, locatePointer, parseJsonText, parseJsonWithLocations, validateDocument } from '../../schema/index.js';
import { readFixture } from './support.js';

t.test('locatePointer finds values, keys and array entries', async (t) => {
  const text = '{\n  "a": 1,\n  "b": [true, {"c~d/e": "x"}],\n\t"f": {"g": null}\n}';
  t.same(locatePointer(text, ''), { line: 1, column: 1, exact: true });
  t.same(locatePointer(text, '/a'), { line: 2, column: 8, key: { line: 2, column: 3 }, exact: true });
  t.same(locatePointer(text, '/b/0'), { line: 3, column: 9, exact: true });
  t.same(locatePointer(text, '/b/1/c~0d~1e'), { line: 3, column: 25, key: { line: 3, column: 16 }, exact: true });
  t.same(locatePointer(text, '/f/g'), { line: 4, column: 13, key: { line: 4, column: 8 }, exact: true });
  t.same(locatePointer(text, '/f/missing/deeper'), { line: 4, column: 7, key: { line: 4, column: 2 }, exact: false }, 'nearest ancestor');
  t.equal(locatePointer('{"a": }', '/a'), null, 'unparsable text');
  t.equal(locatePointer(text, 'no-slash'), null, 'invalid pointer');
});

t.test('line endings and BOM', async (t) => {
  t.same(locatePointer('\ufeff{"a":\r\n 1}', '/a'), { line: 2, column: 2, key: { line: 1, column: 2 }, exact: true });
  t.same(locatePointer('{"a":\r 2}', '/a'), { line: 2, column: 2, key: { line: 1, column: 2 }, exact: true }, 'a lone CR ends a line');
});

t.test('the parser agrees with JSON.parse', async (t) => {
  const samples = ['0', '-1.5e+3', '"\\u00e9\\n"', '[]', '{}', '{"__proto__": {"x": 1}}', '[1, [2, [3, {"a": "b"}]]]', ' true ', 'null'];
  for (const sample of samples) t.same(parseJsonWithLocations(sample).value, JSON.parse(sample), sample);
  const proto = parseJsonWithLocations('{"__proto__": 1}').value as Record<string, unknown>;
  t.ok(Object.prototype.hasOwnProperty.call(proto, '__proto__') && Object.getPrototypeOf(proto) === Object.prototype);
  const invalid: Array<[string, number, number]> = [
    ['{"a": 1,}', 1, 9], ['[1 2]', 1, 4], ['{"a"\n  1}', 2, 3], ['"abc', 1, 1], ['01', 1, 2], ['{"a": tru}', 1, 7], ['"a\tb"', 1, 3], ['', 1, 1], ['{} x', 1, 4],
  ];
  for (const [text, line, column] of invalid) {
    const parsed = parseJsonText(text);
    t.match(parsed, { ok: false, issue: { code: 'schema_parsing_error', location: { line, column } } }, JSON.stringify(text));
  }
});

t.test('issues of a fixture map to file positions (what the CLI linter prints)', async (t) => {
  const text = readFixture('invalid-json-rules.v2.json');
  const locate = createPointerLocator(text);
  const lines = text.split('\n');
  for (const issue of validateDocument(JSON.parse(text)).issues) {
    const at = locate(issue.pointer);
    t.ok(at?.exact, `${issue.pointer} located`);
    if (!at) continue;
    const position = at.key ?? at;
    const lastToken = issue.pointer.split('/').at(-1)?.replace(/~1/g, '/').replace(/~0/g, '~') ?? '';
    if (!/^\d+$/.test(lastToken)) t.equal(lines[position.line - 1]?.slice(position.column - 1, position.column + lastToken.length + 1), `"${lastToken}"`, `${issue.pointer} points at its key`);
  }
});
