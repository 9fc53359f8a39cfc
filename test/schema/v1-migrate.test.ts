import t from 'tap';
import { groupChoices, migrateV1ToV2, toChoiceRecords, validateDocument } from '../../schema/index.js';
import { codes, readFixture, readFixtureJson } from './support.js';

const lists = groupChoices(toChoiceRecords(readFixtureJson('choices.json')));
const baseUrl = 'https://fieldops.example/api';
const ref = (field: string): unknown => [{ $ref: `${baseUrl}/v2.0/schemas/choices.json?field=${field}` }];

t.test('a v1 document migrates to a valid, normalised v2 document', async (t) => {
  const result = migrateV1ToV2(readFixture('fence-patrol.v1.txt'), { baseUrl, choices: lists });
  t.same(result.errors, []);
  const json = result.document?.json as Record<string, any>;
  const ui = result.document?.ui as Record<string, any>;
  t.equal(json.$schema, 'https://json-schema.org/draft/2020-12/schema');
  t.equal(json.unevaluatedProperties, false);
  t.notOk('additionalProperties' in json);
  t.same(json.required, ['fencerep_section', 'fencerep_damage'], 'unknown required names dropped');
  t.same(json.properties.fencerep_damage, { type: 'string', title: 'Damage', anyOf: ref('fixture_damage') });
  t.same(json.properties.fencerep_voltage, { type: 'number', title: 'Voltage (kV)', exclusiveMinimum: 0 });
  t.same(json.properties.fencerep_urgency, { type: 'string', title: 'Urgency', anyOf: ref('fencerep_urgency') });
  t.same(json.properties.fencerep_checked_at, { type: 'string', title: 'Checked at', format: 'date-time' });
  t.same(json.properties.fencerep_tools, { type: 'array', title: 'Tools used', uniqueItems: true, items: { type: 'string', anyOf: ref('fixture_tools') } });
  t.same(json.properties.fencerep_repairs.items.properties.material, { type: 'string', title: 'Material', anyOf: ref('fixture_material') });
  t.equal(json.properties.fencerep_repairs.unevaluatedItems, false);
  t.same(result.newChoices, [
    { field: 'fencerep_urgency', value: 'low', display: 'Low', ordernum: 10 },
    { field: 'fencerep_urgency', value: 'medium', display: 'Medium', ordernum: 20 },
    { field: 'fencerep_urgency', value: 'high_now', display: 'High, act now', ordernum: 30 },
  ]);
  t.same(ui.order, ['section-1', 'section-2']);
  t.same(ui.sections['section-1'], {
    columns: 2, isActive: true, label: 'Where',
    leftColumn: [{ name: 'fencerep_section', type: 'field' }, { name: 'fencerep_voltage', type: 'field' }],
    rightColumn: [{ name: 'fencerep_damage', type: 'field' }, { name: 'fencerep_urgency', type: 'field' }],
  });
  t.same(ui.sections['section-2'].leftColumn.map((e: { name: string }) => e.name), ['fencerep_checked_at', 'fencerep_notes', 'fencerep_tools', 'fencerep_repairs']);
  t.match(ui.fields, {
    fencerep_section: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'section-1' },
    fencerep_voltage: { type: 'NUMBER', inputType: 'NUMBER' },
    fencerep_damage: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['fixture_damage'] } },
    fencerep_notes: { type: 'TEXT', inputType: 'LONG_TEXT', parent: 'section-2' },
    fencerep_checked_at: { type: 'DATE_TIME', inputType: 'DATE_TIME' },
    fencerep_tools: { type: 'CHOICE_LIST', inputType: 'CHECKBOX' },
    fencerep_repairs: { type: 'COLLECTION', leftColumn: ['material', 'metres'] },
  });
  t.same(result.warnings.map((w) => [w.code, w.pointer, w.location]), [
    ['migration_warning', '/schema/properties/fencerep_urgency/enum', { line: 19, column: 17 }],
    ['migration_warning', '/schema/required/2', { line: 6, column: 57 }],
  ]);
  t.match(result.warnings[0]?.message, /"HIGH now" → "high_now"/);
  t.same(validateDocument(result.document).issues, [], 'the result validates on its own');
});

t.test('migration is deterministic', async (t) => {
  const text = readFixture('fence-patrol.v1.txt');
  t.equal(JSON.stringify(migrateV1ToV2(text, { baseUrl, choices: lists })), JSON.stringify(migrateV1ToV2(text, { baseUrl, choices: lists })));
});

t.test('inline lists: an equal existing list is reused, another name is de-duplicated', async (t) => {
  const text = (enumValues: string): string => `{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
    "properties": {"fixture_behaviour": {"type": "string", "enum": ${enumValues}}, "other": {"type": "string", "enum": {{enum___fixture_behaviour___values}}}}}, "definition": []}`;
  const same = migrateV1ToV2(text('["resting", "grazing"]'), { baseUrl, choices: lists });
  t.same(same.errors, []);
  t.same(same.newChoices, []);
  t.same((same.document?.json as any).properties.fixture_behaviour.anyOf, ref('fixture_behaviour'));
  const fresh = migrateV1ToV2(text('["a", "b"]'), { baseUrl, choices: lists });
  t.same(fresh.newChoices.map((c) => c.field), ['fixture_behaviour_2', 'fixture_behaviour_2']);
  const mixed = migrateV1ToV2(text('[1, 2]'), { baseUrl });
  t.same((mixed.document?.json as any).properties.fixture_behaviour, { type: 'string', enum: [1, 2] }, 'non-string values stay inline');
  t.match(codes(mixed.warnings, 'all'), ['migration_warning /schema/properties/fixture_behaviour/enum']);
});

t.test('draft-04 keywords are converted', async (t) => {
  const text = `{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "id": "urn:x", "type": "object",
    "definitions": {"count": {"type": "integer", "maximum": 9, "exclusiveMaximum": false}},
    "properties": {
      "n": {"$ref": "#/definitions/count"},
      "pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}], "additionalItems": false},
      "flag": {"type": "boolean", "required": true, "widget": "toggle"}
    }}, "definition": ["n"]}`;
  const result = migrateV1ToV2(text, { baseUrl: '' });
  const json = result.document?.json as any;
  t.same(json.$defs, { count: { type: 'integer', maximum: 9 } });
  t.same(json.properties.n, { $ref: '#/$defs/count' });
  t.same(json.properties.pair, { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
  t.same(json.properties.flag, { type: 'boolean' });
  t.same(codes(result.warnings, 'all'), [
    'migration_warning /schema/properties/flag/required',
    'migration_warning /schema/properties/flag/widget',
    'migration_warning /schema/id',
    // no v2 form control for a $ref, a tuple or a boolean: no ui.fields entry, and the validator agrees
    'migration_warning /schema/properties/n',
    'migration_warning /schema/properties/pair',
    'migration_warning /schema/properties/flag',
    'schema_validation_error /json/properties/n',
    'schema_validation_error /json/properties/pair',
    'ui_definition_error /ui/sections/section-1/leftColumn/0',
  ]);
  t.same(result.errors, []);
});

t.test('a broken v1 document reports precisely why it cannot migrate', async (t) => {
  const result = migrateV1ToV2(readFixture('broken-tags.v1.txt'), { baseUrl, choices: lists });
  t.same(result.errors.map((e) => [e.code, e.pointer, e.location]), [
    ['v1_template_error', '/schema/properties/colour/enumNames', { line: 15, column: 22 }],
    ['v1_template_error', '/schema/properties/size/enum', { line: 17, column: 60 }],
  ]);
  t.same((result.document?.json as any).properties.colour.anyOf, ref('fixture_colour'), 'best-effort document still shown');
  t.same(codes(result.warnings, 'all'), ['v1_template_error /schema/properties/colour/enum', 'migration_warning /schema/properties/colour/enum']);
  const unreadable = migrateV1ToV2('{"schema": ', { baseUrl });
  t.equal(unreadable.document, null);
  t.same(codes(unreadable.errors), ['schema_parsing_error ']);
});
