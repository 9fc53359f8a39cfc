import t from 'tap';
import { createLocalChoiceResolver, groupChoices, preRender, toChoiceRecords, validateDocument, type ChoiceResolver } from '../../schema/index.js';
import { codes, readFixtureJson } from './support.js';

const lists = groupChoices(toChoiceRecords(readFixtureJson('choices.json')));
type Doc = { json: Record<string, any>; ui: Record<string, unknown> };

function countingResolver(inner: ChoiceResolver): { resolver: ChoiceResolver; calls: string[] } {
  const calls: string[] = [];
  return { calls, resolver: async (request) => { calls.push(`${request.field}@${request.url}`); return inner(request); } };
}

t.test('default anyOf shape, root unevaluatedProperties dropped, each reference resolved once', async (t) => {
  const doc = readFixtureJson('every-field-kind.v2.json');
  const { resolver, calls } = countingResolver(createLocalChoiceResolver(lists));
  const { document, issues } = await preRender(doc, resolver, {});
  const json = (document as Doc).json;
  t.same(issues, []);
  t.notOk('unevaluatedProperties' in json, 'root unevaluatedProperties is dropped');
  t.notOk('additionalProperties' in json);
  t.same(json.properties.species, {
    type: 'string', title: 'Species',
    anyOf: [{ const: 'elephant', title: 'Elephant' }, { const: 'giraffe', title: 'Giraffe' }, { const: 'zebra', title: 'Zebra' }],
  }, 'inactive choices are not offered');
  t.same(json.properties.behaviours.items, { type: 'string', anyOf: [{ const: 'grazing', title: 'Grazing' }, { const: 'resting', title: 'Resting' }] });
  t.same(json.properties.animals.items.properties.age_class.anyOf.map((e: { const: string }) => e.const), ['adult', 'juvenile', 'calf']);
  t.equal(json.properties.animals.items.unevaluatedProperties, false, 'nested unevaluatedProperties stays');
  t.equal(calls.length, 3);
  t.same(validateDocument(doc).valid, true, 'the input document is untouched');
});

t.test('oneOf and enum shapes', async (t) => {
  const doc = readFixtureJson('every-field-kind.v2.json');
  const resolver = createLocalChoiceResolver(lists);
  const oneOf = (await preRender(doc, resolver, { shape: 'oneOf' })).document as Doc;
  t.same(oneOf.json.properties.species.oneOf, [{ const: 'elephant', title: 'Elephant' }, { const: 'giraffe', title: 'Giraffe' }, { const: 'zebra', title: 'Zebra' }]);
  t.notOk('anyOf' in oneOf.json.properties.species);
  const asEnum = (await preRender(doc, resolver, { shape: 'enum' })).document as Doc;
  t.same(Object.keys(asEnum.json.properties.species), ['type', 'title', 'enum', 'x-enumExtra']);
  t.same(asEnum.json.properties.species.enum, ['elephant', 'giraffe', 'zebra']);
  t.same(asEnum.json.properties.species['x-enumExtra'], { elephant: { display: 'Elephant' }, giraffe: { display: 'Giraffe' }, zebra: { display: 'Zebra' } });
  t.same(asEnum.json.properties.behaviours.items.enum, ['grazing', 'resting']);
  await t.rejects(preRender(doc, resolver, { shape: 'list' as never }), TypeError);
});

t.test('an unresolvable reference becomes {} with a warning, never a failure', async (t) => {
  const doc = readFixtureJson('every-field-kind.v2.json');
  const resolver: ChoiceResolver = async ({ field }) => {
    if (field === 'fixture_species') return null;
    if (field === 'fixture_age_class') throw new Error('connect ECONNREFUSED 10.0.0.5:443');
    return lists.get(field) ?? null;
  };
  const { document, issues } = await preRender(doc, resolver);
  const json = (document as Doc).json;
  t.same(json.properties.species, {});
  t.same(json.properties.animals.items.properties.age_class, {}, 'the nested property is blanked, not the collection');
  t.equal(json.properties.animals.items.properties.tag.type, 'string');
  t.same(json.properties.behaviours.items.anyOf.length, 2);
  t.same(codes(issues, 'all'), [
    'unresolvable_reference /json/properties/species/anyOf/0/$ref',
    'unresolvable_reference /json/properties/animals/items/properties/age_class/anyOf/0/$ref',
  ]);
  t.ok(issues.every((i) => i.severity === 'warning'));
  t.notMatch(issues.map((i) => i.message).join(' '), /ECONNREFUSED/, 'resolver errors are not leaked');
});

t.test('several lists in one reference, shared URLs, empty and malformed answers', async (t) => {
  const base = 'https://s.example/api/v2.0/schemas/choices.json?field=';
  const doc = {
    json: {
      $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', unevaluatedProperties: false,
      properties: {
        both: { type: 'string', anyOf: [{ $ref: `${base}a,b` }] },
        again: { type: 'string', anyOf: [{ $ref: `${base}a,b` }] },
        mixed: { type: 'string', anyOf: [{ $ref: `${base}a` }, { const: 'other', title: 'Other' }] },
        empty: { type: 'string', anyOf: [{ $ref: `${base}none` }] },
        broken: { type: 'string', anyOf: [{ $ref: `${base}broken` }] },
      },
    },
    ui: {},
  };
  const answers: Record<string, unknown> = {
    a: [{ value: 'x', display: 'X' }, { value: 'y', display: 'Y' }],
    b: [{ value: 'y', display: 'Y again' }, { value: 'z', display: 'Z' }],
    none: [],
    broken: [{ value: 1 }],
  };
  const { resolver, calls } = countingResolver(({ field }) => answers[field] as never);
  const { document, issues } = await preRender(doc, resolver, { shape: 'oneOf' });
  const props = (document as Doc).json.properties;
  t.same(props.both.oneOf.map((e: { const: string }) => e.const), ['x', 'y', 'z'], 'lists concatenated, duplicates dropped');
  t.same(props.again, props.both);
  t.same(props.mixed.anyOf, [{ const: 'x', title: 'X' }, { const: 'y', title: 'Y' }, { const: 'other', title: 'Other' }], 'mixed anyOf keeps the anyOf shape');
  t.same(props.empty, { type: 'string', enum: [] });
  t.same(props.broken, {});
  t.same(calls.sort(), [`a@${base}a`, `a@${base}a,b`, `b@${base}a,b`, `broken@${base}broken`, `none@${base}none`]);
  t.same(codes(issues, 'all'), ['schema_rendering_error /json/properties/broken/anyOf/0/$ref', 'unresolvable_reference /json/properties/empty/anyOf']);
});

t.test('a non-envelope is reported, the empty envelope passes through', async (t) => {
  const resolver = createLocalChoiceResolver(lists);
  t.same(codes((await preRender('x', resolver)).issues), ['schema_structure_error ']);
  t.same(await preRender({ json: {}, ui: {} }, resolver), { document: { json: {}, ui: {} }, issues: [] });
});
