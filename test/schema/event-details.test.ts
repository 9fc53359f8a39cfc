import t from 'tap';
import {
  buildEventDetailsValidator, createEventDetailsValidatorCache, createLocalChoiceResolver, groupChoices, preRender,
  SchemaCompileError, toChoiceRecords, type SchemaIssue,
} from '../../schema/index.js';
import { codes, readFixtureJson } from './support.js';

const lists = groupChoices(toChoiceRecords(readFixtureJson('choices.json')));

async function renderedJson(shape?: 'anyOf' | 'oneOf' | 'enum'): Promise<Record<string, unknown>> {
  const { document } = await preRender(readFixtureJson('every-field-kind.v2.json'), createLocalChoiceResolver(lists), shape ? { shape } : {});
  return (document as { json: Record<string, unknown> }).json;
}

const goodDetails = {
  reporter: 'Amina Otieno',
  contact_email: 'amina@example.org',
  group_size: 4,
  species: 'giraffe',
  behaviours: ['grazing'],
  seen_on: '2026-11-20',
  seen_at: '10:15:00+03:00',
  reported_at: '2026-11-20T10:20:00.000+03:00',
  sighting_point: { type: 'Point', coordinates: [36.8, -1.3] },
  search_area: { type: 'Polygon', coordinates: [[[36.8, -1.3], [36.9, -1.3], [36.9, -1.2], [36.8, -1.3]]] },
  photos: [{ filename: 'a.jpg', content_type: 'image/jpeg', size: 1200 }],
  animals: [{ tag: 'G-12', age_class: 'calf' }],
};

t.test('valid event details pass, in every choice shape', async (t) => {
  for (const shape of ['anyOf', 'oneOf', 'enum'] as const) {
    const validate = buildEventDetailsValidator(await renderedJson(shape));
    t.same(validate(goodDetails), { valid: true, issues: [] }, shape);
  }
});

t.test('invalid event details: one issue per problem, pointers into the data', async (t) => {
  const validate = buildEventDetailsValidator(await renderedJson());
  const { valid, issues } = validate({
    ...goodDetails,
    reporter: undefined,
    species: 'unicorn',
    behaviours: ['grazing', 'dancing'],
    seen_at: '10:15:00',
    contact_email: 'not-an-email',
    group_size: 0,
    sighting_point: { type: 'Point', coordinates: [36.8] },
    animals: [{ age_class: 'adult', colour: 'grey' }],
    extra_field: 1,
  });
  t.equal(valid, false);
  t.same(codes(issues).sort(), [
    'event_details_invalid /animals/0/colour',
    'event_details_invalid /animals/0/tag',
    'event_details_invalid /behaviours/1',
    'event_details_invalid /contact_email',
    'event_details_invalid /group_size',
    'event_details_invalid /reporter',
    'event_details_invalid /seen_at',
    'event_details_invalid /sighting_point/coordinates',
    'event_details_invalid /species',
  ], 'extra top-level fields pass: pre-rendering drops the root unevaluatedProperties');
  const species = issues.find((i: SchemaIssue) => i.pointer === '/species');
  t.match(species, { category: 'validation', message: /not one of the allowed choices/ });
  t.match(species?.hints[0], /"elephant", "giraffe", "zebra"/);
  t.match(issues.find((i) => i.pointer === '/seen_at')?.hints[0], /time zone/);
});

t.test('keepRootClosure keeps the root unevaluatedProperties for server-side validation', async (t) => {
  const { document } = await preRender(readFixtureJson('every-field-kind.v2.json'), createLocalChoiceResolver(lists), { keepRootClosure: true });
  const validate = buildEventDetailsValidator((document as { json: unknown }).json);
  t.same(codes(validate({ ...goodDetails, extra_field: 1 }).issues), ['event_details_invalid /extra_field']);
});

t.test('an empty choice list accepts no value (enum: [] compiles)', async (t) => {
  const validate = buildEventDetailsValidator({ type: 'object', properties: { s: { type: 'string', enum: [] } } });
  t.same(codes(validate({ s: 'anything' }).issues), ['event_details_invalid /s']);
  t.same(validate({}).valid, true);
});

t.test('validators are cached by content, whatever the key order', async (t) => {
  const cache = createEventDetailsValidatorCache({ maxEntries: 2 });
  const a = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] };
  const reordered = { required: ['x'], properties: { x: { type: 'string' } }, type: 'object' };
  cache.build(a);
  cache.build(reordered);
  t.equal(cache.size, 1);
  cache.build({ type: 'object', $id: 'https://one.example/s' });
  cache.build({ type: 'object', $id: 'https://one.example/s', title: 'same $id, other content' });
  t.equal(cache.size, 2, 'least recently used evicted');
  t.same(cache.build(a)({}).issues.map((i) => i.pointer), ['/x'], 'an evicted schema compiles again');
  cache.clear();
  t.equal(cache.size, 0);
});

t.test('a schema that cannot compile is a SchemaCompileError', async (t) => {
  const raw = (readFixtureJson('every-field-kind.v2.json') as { json: unknown }).json;
  t.throws(() => buildEventDetailsValidator(raw), SchemaCompileError, 'choice references not pre-rendered');
  try {
    buildEventDetailsValidator(raw);
  } catch (error) {
    t.match((error as SchemaCompileError).issues[0], { code: 'unresolvable_reference', message: /pre-render/ });
  }
  t.throws(() => buildEventDetailsValidator('nope'), SchemaCompileError);
  t.throws(() => buildEventDetailsValidator({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }), SchemaCompileError);
});
