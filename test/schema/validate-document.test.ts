import t from 'tap';
import { analyseDocument, validateDocument } from '../../schema/index.js';
import { classifyField } from '../../schema/field-kinds.js';
import { codes, readFixtureJson } from './support.js';

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const minimal = (properties: Record<string, unknown> = {}, ui: Record<string, unknown> = {}): unknown => ({
  json: { $schema: DRAFT, type: 'object', additionalProperties: false, properties }, ui,
});

t.test('the empty envelope is valid', async (t) => {
  t.same(validateDocument({ json: {}, ui: {} }), { valid: true, issues: [] });
});

t.test('a document using every field kind is valid without a single issue', async (t) => {
  const result = analyseDocument(readFixtureJson('every-field-kind.v2.json'));
  t.same(result.issues, []);
  t.equal(result.valid, true);
  const kinds = Object.fromEntries([...result.fields].map(([name, info]) => [name, info.kind]));
  t.same(kinds, {
    reporter: 'text', notes: 'text', contact_email: 'text', reference_link: 'text', ranger_code: 'text',
    group_size: 'numeric', distance_m: 'numeric', species: 'single_choice', behaviours: 'multi_choice',
    seen_on: 'date', seen_at: 'time', reported_at: 'date_time', sighting_point: 'point', search_area: 'polygon',
    photos: 'attachment', animals: 'collection',
  });
  t.same(result.fields.get('species')?.choiceFields, ['fixture_species']);
  t.same([...(result.fields.get('animals')?.children.keys() ?? [])], ['tag', 'age_class']);
  t.same(result.choiceReferences.map((r) => r.fields[0]), ['fixture_species', 'fixture_behaviour', 'fixture_age_class']);
});

t.test('envelope rules', async (t) => {
  t.same(codes(validateDocument(readFixtureJson('invalid-envelope.v2.json')).issues), [
    'schema_structure_error /readonly', 'schema_structure_error /icon_id', 'schema_structure_error /image_url', 'schema_structure_error /notes',
  ]);
  t.same(validateDocument({ json: {}, ui: {}, 'auto-generate': true }).valid, true, 'auto-generate is accepted');
  t.same(codes(validateDocument(null).issues), ['schema_structure_error ']);
  t.same(codes(validateDocument([]).issues), ['schema_structure_error ']);
  t.same(codes(validateDocument('{"json": {}}').issues), ['schema_structure_error ']);
  t.same(codes(validateDocument({ json: {} }).issues), ['schema_structure_error /ui']);
  t.same(codes(validateDocument({ json: [], ui: 'x' }).issues), ['schema_structure_error /json', 'schema_structure_error /ui']);
});

t.test('json rules report every problem at once, with pointers and hints', async (t) => {
  const { valid, issues } = validateDocument(readFixtureJson('invalid-json-rules.v2.json'));
  t.equal(valid, false);
  t.same(codes(issues).sort(), [
    'schema_validation_error /json/properties/code/pattern',
    'schema_validation_error /json/properties/count/minimum',
    'schema_validation_error /json/properties/kind/anyOf/0/$ref',
    'schema_validation_error /json/properties/name/minLenght',
    'schema_validation_error /json/properties/name/tpye',
    'schema_validation_error /json/properties/size/type',
    'schema_validation_error /json/properties/where/properties/coordinates/maxItems',
    'schema_validation_error /json/required/1',
    'schema_version_error /json/$schema',
    'unresolvable_reference /json/properties/other/$ref',
  ]);
  for (const issue of issues) t.ok(issue.hints.length > 0 && issue.hints.every((h) => h.length > 0), `${issue.pointer} has hints`);
  const typo = issues.find((i) => i.pointer === '/json/properties/name/tpye');
  t.match(typo?.hints[0], /did you mean `type`/);
  t.match(issues.find((i) => i.pointer === '/json/properties/name/minLenght')?.hints[0], /minLength/);
});

t.test('ui rules', async (t) => {
  const { valid, issues } = validateDocument(readFixtureJson('invalid-ui-rules.v2.json'));
  t.equal(valid, false);
  t.same(codes(issues).sort(), [
    'ui_definition_error /ui/fields/b/type',
    'ui_definition_error /ui/fields/c/inputType',
    'ui_definition_error /ui/fields/d/allowableFileTypes/1',
    'ui_definition_error /ui/sections/section-1/columns',
    'ui_reference_error /ui/fields/a/parent',
    'ui_reference_error /ui/fields/ghost',
    'ui_reference_error /ui/headers/h1/section',
    'ui_reference_error /ui/order/1',
    'ui_reference_error /ui/sections/section-1/leftColumn/2/name',
    'ui_reference_error /ui/sections/section-1/rightColumn/2/name',
  ]);
  t.ok(issues.every((i) => i.category === 'ui'));
});

/**
 * Issue 24, finding 4 (every map of user-given names): names of Object.prototype's members are
 * no UI type and no date format. Before, `constructor` found Object itself in the tables.
 */
t.test('names of Object.prototype members are unknown, never a table entry', async (t) => {
  for (const name of ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
    t.equal(classifyField({ type: 'string', format: name }), 'text', `format ${name} is plain text`);
    const { valid, issues } = validateDocument(minimal({ a: { type: 'string' } }, { fields: { a: { type: name } } }));
    t.equal(valid, false, `ui type ${name} is refused`);
    t.match(codes(issues), ['ui_definition_error /ui/fields/a/type'], `ui type ${name}: an unknown UI type`);
  }
});

t.test('json rules in detail', async (t) => {
  const cases: Array<[string, unknown, string[]]> = [
    ['$schema missing', { json: { type: 'object', properties: {} }, ui: {} }, ['schema_version_error /json/$schema']],
    ['root type not object', { json: { $schema: DRAFT, type: 'array' }, ui: {} }, ['schema_validation_error /json/type']],
    ['meta-schema: properties value not a schema', minimal({ a: 5 }), ['schema_validation_error /json/properties/a']],
    ['meta-schema: negative minLength', minimal({ a: { type: 'string', minLength: -1 } }), ['schema_validation_error /json/properties/a/minLength']],
    ['local $ref to nothing', minimal({ a: { $ref: '#/$defs/missing' } }), ['unresolvable_reference /json/properties/a/$ref']],
    ['choice $ref outside anyOf', minimal({ a: { type: 'string', $ref: 'https://s.example/v2.0/schemas/choices.json?field=x' } }), ['schema_validation_error /json/properties/a/$ref']],
    ['single choice on a number', minimal({ a: { type: 'number', anyOf: [{ $ref: '/v2.0/schemas/choices.json?field=x' }] } }), ['schema_validation_error /json/properties/a/type']],
    ['multi choice of numbers', minimal({ a: { type: 'array', items: { type: 'number', anyOf: [{ $ref: '/v2.0/schemas/choices.json?field=x' }] } } }), ['schema_validation_error /json/properties/a/items/type']],
    ['attachment without size', minimal({ a: { type: 'array', items: { type: 'object', properties: { filename: { type: 'string' }, content_type: { type: 'string' } } } } }), ['schema_validation_error /json/properties/a/items/properties/size']],
    ['polygon ring too short', minimal({ p: { type: 'object', required: ['type', 'coordinates'], properties: { type: { const: 'Polygon' }, coordinates: { type: 'array', items: { type: 'array', minItems: 3, items: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 } } } } } }), ['schema_validation_error /json/properties/p/properties/coordinates/items/minItems']],
    ['point not requiring coordinates', minimal({ p: { type: 'object', required: ['type'], properties: { type: { const: 'Point' }, coordinates: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 } } } }), ['schema_validation_error /json/properties/p/required']],
    ['collection items not objects', minimal({ c: { type: 'array', items: { properties: { x: { type: 'string' } } } } }), ['schema_validation_error /json/properties/c/items/type']],
    ['collection item required but undefined', minimal({ c: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } }, required: ['y'] } } }), ['schema_validation_error /json/properties/c/items/required/0']],
    ['local refs and anchors resolve', minimal({ a: { $ref: '#/$defs/t' }, b: { $ref: '#anchored' } }), ['unresolvable_reference /json/properties/a/$ref', 'unresolvable_reference /json/properties/b/$ref']],
  ];
  for (const [name, doc, expected] of cases) t.same(codes(validateDocument(doc).issues), expected, name);
  const defs = { json: { $schema: DRAFT, type: 'object', additionalProperties: false, $defs: { t: { type: 'string', $anchor: 'anchored' } }, properties: { a: { $ref: '#/$defs/t' }, b: { $ref: '#anchored' } } }, ui: {} };
  t.same(codes(validateDocument(defs).issues), [], 'with $defs present they resolve');
});

t.test('warnings do not make a document invalid', async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ['open root', { json: { $schema: DRAFT, type: 'object', properties: {} }, ui: {} }, 'schema_validation_error /json'],
    ['unknown format', minimal({ a: { type: 'string', format: 'colour' } }), 'schema_validation_error /json/properties/a/format'],
    ['keyword of another type', minimal({ a: { type: 'number', maxLength: 3 } }), 'schema_validation_error /json/properties/a/maxLength'],
    ['legacy definitions', { json: { $schema: DRAFT, type: 'object', additionalProperties: false, definitions: {} }, ui: {} }, 'schema_validation_error /json/definitions'],
    ['inline enum', minimal({ a: { type: 'string', enum: ['x', 'y'] } }), 'schema_validation_error /json/properties/a'],
    ['x- extensions are allowed', minimal({ a: { type: 'string', 'x-colour': 'red', maxLength: 3 } }), ''],
  ];
  for (const [name, doc, expected] of cases) {
    const result = validateDocument(doc);
    t.equal(result.valid, true, name);
    t.same(codes(result.issues, 'all'), expected ? [expected] : [], name);
  }
});

t.test('ui cross-checks that only warn', async (t) => {
  const ref = '/v2.0/schemas/choices.json?field=species';
  const doc = {
    json: { $schema: DRAFT, type: 'object', additionalProperties: false, properties: { s: { type: 'string', anyOf: [{ $ref: ref }] }, n: { type: 'number' }, hidden: { type: 'string' } } },
    ui: {
      fields: {
        s: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', parent: 'sec', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['other'], myDataType: 'SOMETHING' } },
        n: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'sec', colour: 'red' },
        hidden: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'sec' },
      },
      order: ['sec'],
      sections: { sec: { label: '', columns: 1, isActive: true, leftColumn: [{ name: 's', type: 'field' }, { name: 'n', type: 'field' }], rightColumn: [{ name: 's', type: 'field' }] } },
    },
  };
  const result = validateDocument(doc);
  t.equal(result.valid, true);
  t.same(codes(result.issues, 'all').sort(), [
    'ui_definition_error /ui/fields/hidden',
    'ui_definition_error /ui/fields/n/colour',
    'ui_definition_error /ui/fields/n/type',
    'ui_definition_error /ui/fields/s/choices/existingChoiceList',
    'ui_definition_error /ui/fields/s/choices/myDataType',
    'ui_definition_error /ui/sections/sec/rightColumn',
    'ui_definition_error /ui/sections/sec/rightColumn/0',
  ]);
});

t.test('once a document has UI fields, every field should have one', async (t) => {
  const doc = minimal({ a: { type: 'string' }, b: { type: 'string' } }, {
    fields: { a: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 's' } }, order: ['s'],
    sections: { s: { label: '', columns: 1, isActive: true, leftColumn: [{ name: 'a', type: 'field' }, { name: 'b', type: 'field' }], rightColumn: [] } },
  });
  const result = validateDocument(doc);
  t.equal(result.valid, true);
  t.same(codes(result.issues, 'all'), ['ui_definition_error /ui/sections/s/leftColumn/1', 'ui_definition_error /json/properties/b']);
});

t.test('collection UI columns name item fields', async (t) => {
  const doc = minimal(
    { c: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } } } } },
    { fields: { c: { type: 'COLLECTION', parent: 's', leftColumn: ['x'], rightColumn: ['y'] }, x: { type: 'TEXT', inputType: 'SHORT_TEXT' } }, order: ['s'], sections: { s: { label: '', columns: 1, isActive: true, leftColumn: [{ name: 'c', type: 'field' }], rightColumn: [] } } },
  );
  t.same(codes(validateDocument(doc).issues, 'all'), ['ui_reference_error /ui/fields/c/rightColumn/0'], 'item fields may have ui.fields entries, without a parent');
});

t.test('validating many documents stays fast (meta-schema compiled once)', async (t) => {
  const doc = readFixtureJson('every-field-kind.v2.json');
  const start = performance.now();
  for (let i = 0; i < 200; i++) validateDocument(doc);
  const perDocument = (performance.now() - start) / 200;
  t.ok(perDocument < 25, `${perDocument.toFixed(2)} ms per document`);
});
