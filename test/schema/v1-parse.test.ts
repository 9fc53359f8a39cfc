import t from 'tap';
import { parseV1 } from '../../schema/index.js';
import { codes, readFixture } from './support.js';

t.test('tags are listed with kind, line, column and pointer; their places hold null', async (t) => {
  const parsed = parseV1(readFixture('fence-patrol.v1.txt'));
  t.same(parsed.issues, []);
  t.same(parsed.tags.map((tag) => `${tag.lookup}/${tag.field}/${tag.kind} ${tag.line}:${tag.column} ${tag.pointer}`), [
    'enum/fixture_damage/values 12:17 /schema/properties/fencerep_damage/enum',
    'enum/fixture_damage/names 13:22 /schema/properties/fencerep_damage/enumNames',
    'enum/fixture_material/values 34:23 /schema/properties/fencerep_repairs/items/properties/material/enum',
    'enum/fixture_material/names 35:28 /schema/properties/fencerep_repairs/items/properties/material/enumNames',
    'enum/fixture_tools/map 54:70 /definition/3/items/2/titleMap',
  ]);
  t.equal((parsed.schema?.properties as Record<string, Record<string, unknown>>).fencerep_damage?.enum, null);
  t.equal(parsed.definitionPointer, '/definition');
  t.equal(parsed.definition?.length, 4);
  t.same(parsed.locate('/schema/properties/fencerep_voltage'), { line: 15, column: 27 });
});

t.test('malformed and split tags are reported with line and column', async (t) => {
  const parsed = parseV1(readFixture('broken-tags.v1.txt'));
  t.same(parsed.issues.map((i) => [i.severity, i.code, i.pointer, i.location]), [
    ['warning', 'v1_template_error', '/schema/properties/colour/enum', { line: 10, column: 17 }],
    ['error', 'v1_template_error', '/schema/properties/colour/enumNames', { line: 15, column: 22 }],
    ['error', 'v1_template_error', '/schema/properties/size/enum', { line: 17, column: 60 }],
  ]);
  t.match(parsed.issues[1]?.message, /three parts/);
  t.match(parsed.issues[2]?.message, /unknown lookup `lookup`/);
  t.same(parsed.tags.map((tag) => tag.field), ['fixture_colour'], 'the split tag is still read');
  t.ok(parsed.schema, 'the rest of the document is readable');
});

t.test('syntax errors keep their source position (tags do not shift columns)', async (t) => {
  const text = '{\n  "schema": {"properties": {"a": {"enum": {{enum___a___values}} "x": 1}}},\n  "definition": []\n}';
  const parsed = parseV1(text);
  t.equal(parsed.schema, null);
  t.same(parsed.issues.map((i) => [i.code, i.location]), [['schema_parsing_error', { line: 2, column: 65 }]]);
  const unterminated = parseV1('{"schema": {"a": {{enum___a___values}');
  t.same(codes(unterminated.issues), ['v1_template_error ', 'schema_parsing_error ']);
  t.same(unterminated.issues[0]?.location, { line: 1, column: 18 });
});

t.test('structure of a v1 document', async (t) => {
  t.same(codes(parseV1('[]').issues), ['schema_structure_error ']);
  t.same(codes(parseV1('{"definition": []}').issues), ['schema_structure_error /schema']);
  t.same(codes(parseV1('{"schema": {}, "definition": {}}').issues, 'all'), ['schema_structure_error /definition', 'schema_version_error /schema/$schema']);
  const nested = parseV1('{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "definition": ["a"]}, "extra": 1}');
  t.same(codes(nested.issues, 'all'), ['schema_structure_error /extra', 'schema_structure_error /schema/definition']);
  t.same(nested.definition, ['a']);
  t.equal(nested.definitionPointer, '/schema/definition');
  const inString = parseV1('{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "title": "{{not a tag}}"}}');
  t.same(inString.tags, []);
  t.same(inString.issues, [], 'braces inside strings are text');
});
