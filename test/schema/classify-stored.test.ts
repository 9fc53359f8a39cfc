import t from 'tap';
import { classifyStoredDocument } from '../../schema/index.js';
import { codes } from './support.js';

t.test('stored documents served as they are', async (t) => {
  for (const doc of [{ json: {}, ui: {} }, { json: { type: 'object' }, ui: { fields: {} }, 'auto-generate': true }, '{"json": {}, "ui": {}}']) {
    const result = classifyStoredDocument(doc);
    t.equal(result.ok, true, JSON.stringify(doc));
  }
});

t.test('stored documents answered with 422', async (t) => {
  const cases: Array<[unknown, string[]]> = [
    [null, ['no_schema_defined ']],
    [undefined, ['no_schema_defined ']],
    [{}, ['no_schema_defined ']],
    ['{}', ['no_schema_defined ']],
    ['null', ['no_schema_defined ']],
    [[], ['schema_structure_error ']],
    ['just text', ['schema_parsing_error ']],
    [42, ['schema_structure_error ']],
    [{ json: {} }, ['schema_structure_error /ui']],
    [{ schema: {}, definition: [] }, ['schema_structure_error /json', 'schema_structure_error /ui']],
  ];
  for (const [stored, expected] of cases) {
    const result = classifyStoredDocument(stored);
    t.equal(result.ok, false, JSON.stringify(stored));
    if (!result.ok) t.same(codes(result.issues), expected, JSON.stringify(stored));
  }
  const parsed = classifyStoredDocument('{"json": {},\n "ui": }');
  t.match(!parsed.ok && parsed.issues[0], { code: 'schema_parsing_error', location: { line: 2, column: 8 } });
});
