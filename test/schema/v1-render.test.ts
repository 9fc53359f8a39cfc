import t from 'tap';
import { createEventDetailsValidatorCache, groupChoices, renderV1, toChoiceRecords, v1DetailsSchema } from '../../schema/index.js';
import { codes, readFixture, readFixtureJson } from './support.js';

const lists = groupChoices(toChoiceRecords(readFixtureJson('choices.json')));

t.test('tags render as er-server renders them', async (t) => {
  const { document, issues } = renderV1(readFixture('fence-patrol.v1.txt'), lists);
  t.same(issues, []);
  const damage = (document as any).schema.properties.fencerep_damage;
  t.same(damage.enum, ['fallen_tree', 'cut_wire', 'animal'], 'values: ordered by ordernum');
  t.same(damage.enumNames, { fallen_tree: 'Fallen tree', cut_wire: 'Cut wire', animal: 'Animal damage' }, 'names: a {value: display} object');
  t.same((document as any).definition[3].items[2].titleMap, [
    { value: 'pliers', name: 'Pliers' }, { value: 'tensioner', name: 'Tensioner' }, { value: 'tester', name: 'Voltage tester' },
  ], 'map: [{value, name}], choices without ordernum last');
  t.same((document as any).schema.properties.fencerep_repairs.items.properties.material.enum, ['wire', 'post']);
});

t.test('a plain object of lists works as well as a Map', async (t) => {
  const text = '{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": {"enum": {{ enum___x___values }}}}}}';
  const { document } = renderV1(text, { x: [{ value: 'one', display: 'One' }] });
  t.same((document as any).schema.properties.a.enum, ['one']);
});

t.test('unknown lists render empty with a warning; malformed documents do not render', async (t) => {
  const text = '{"schema": {"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": {"enum": {{query___subjects___values}}, "enumNames": {{query___subjects___names}}}}}}';
  const { document, issues } = renderV1(text, lists);
  t.same((document as any).schema.properties.a, { enum: [], enumNames: {} });
  t.same(codes(issues, 'all'), ['unresolvable_reference /schema/properties/a/enum'], 'one warning per list');
  const broken = renderV1(readFixture('broken-tags.v1.txt'), lists);
  t.equal(broken.document, null);
  t.same(codes(broken.issues), ['v1_template_error /schema/properties/colour/enumNames', 'v1_template_error /schema/properties/size/enum']);
});

t.test('v1DetailsSchema: the rendered schema as a 2020-12 schema for event_details', async (t) => {
  const { document } = renderV1(readFixture('fence-patrol.v1.txt'), lists);
  const schema = v1DetailsSchema(document as Record<string, unknown>) as any;
  t.notOk('$schema' in schema, 'the draft-04 $schema is dropped');
  t.same(schema.properties.fencerep_voltage.exclusiveMinimum, 0, 'draft-04 keywords are converted');
  t.same(schema.properties.fencerep_tools, { type: 'array', title: 'Tools used', uniqueItems: true, items: { type: 'string', enum: ['pliers', 'tensioner', 'tester'] } }, 'checkboxes: a list of the rendered titleMap values');
  const validate = createEventDetailsValidatorCache().build(schema);
  const details = { fencerep_section: 'km 3', fencerep_damage: 'animal', fencerep_gate: 'n', fencerep_tools: ['pliers'] };
  t.equal(validate(details).valid, true);
  t.equal(validate({ ...details, fencerep_tools: ['saw'] }).valid, false, 'a value outside the titleMap');
  t.equal(validate({ ...details, fencerep_tools: ['pliers', 'pliers'] }).valid, false, 'each value once');

  const inline = (titleMap: string) => v1DetailsSchema(JSON.parse(`{"schema": {"id": "x", "properties": {"a": {"type": "checkboxes"}, "list": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "checkboxes"}}}}}}, "definition": [{"key": "a", "titleMap": ${titleMap}}]}`)) as any;
  t.same(inline('{"x": "X", "y": "Y"}').properties.a.items, { type: 'string', enum: ['x', 'y'] }, 'a {value: name} titleMap');
  t.same(inline('[]').properties.a.items, { type: 'string' }, 'an empty titleMap (a list with no choices) limits nothing');
  t.same(inline('[]').properties.list.items.properties.b, { type: 'array', uniqueItems: true, items: { type: 'string' } }, 'nested: a list of strings');
  t.notOk('id' in inline('[]'), 'the root id is dropped');
  t.equal(v1DetailsSchema({ definition: [] }), null, 'no schema: nothing to validate');
});
