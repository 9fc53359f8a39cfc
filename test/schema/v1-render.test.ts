import t from 'tap';
import { groupChoices, renderV1, toChoiceRecords } from '../../schema/index.js';
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
