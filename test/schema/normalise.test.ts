import fc from 'fast-check';
import t from 'tap';
import { normaliseDocument, normaliseJsonSchema, validateDocument } from '../../schema/index.js';
import { readFixtureJson } from './support.js';

t.test('additionalProperties: false becomes unevaluatedProperties: false, in place, everywhere', async (t) => {
  const doc = {
    json: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      additionalProperties: false,
      type: 'object',
      properties: {
        nested: { type: 'object', additionalProperties: false, properties: { x: { type: 'string' } } },
        open: { type: 'object', additionalProperties: true },
        schemaValued: { type: 'object', additionalProperties: { type: 'string' } },
        both: { type: 'object', additionalProperties: false, unevaluatedProperties: { type: 'number' } },
      },
    },
    ui: {},
    'auto-generate': true,
  };
  const before = JSON.stringify(doc);
  const out = normaliseDocument(doc) as unknown as { json: Record<string, any>; [key: string]: unknown };
  t.equal(JSON.stringify(doc), before, 'the input is not modified');
  t.same(Object.keys(out.json), ['$schema', 'unevaluatedProperties', 'type', 'properties'], 'same key position');
  t.equal(out.json.unevaluatedProperties, false);
  t.same(out.json.properties.nested, { type: 'object', unevaluatedProperties: false, properties: { x: { type: 'string' } } });
  t.same(out.json.properties.open, { type: 'object', additionalProperties: true });
  t.same(out.json.properties.schemaValued, { type: 'object', additionalProperties: { type: 'string' } });
  t.same(out.json.properties.both, doc.json.properties.both, 'left alone when unevaluatedProperties exists');
  t.equal(out['auto-generate'], true, 'other envelope keys are kept');
});

t.test('unevaluatedItems: false is added to arrays of objects that omit it', async (t) => {
  const json = {
    type: 'object',
    properties: {
      collection: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
      explicit: { type: 'array', unevaluatedItems: true, items: { type: 'object' } },
      strings: { type: 'array', items: { type: 'string' } },
      nested: { type: 'array', items: { type: 'object', properties: { inner: { type: 'array', items: { properties: {} } } } } },
    },
  };
  const out = normaliseJsonSchema(json) as { properties: Record<string, Record<string, unknown>> };
  t.equal(out.properties.collection?.unevaluatedItems, false);
  t.equal(out.properties.explicit?.unevaluatedItems, true);
  t.notOk('unevaluatedItems' in (out.properties.strings ?? {}));
  t.match(out.properties.nested, { unevaluatedItems: false, items: { properties: { inner: { unevaluatedItems: false } } } });
});

t.test('a normalised valid document stays valid', async (t) => {
  const normalised = normaliseDocument(readFixtureJson('every-field-kind.v2.json'));
  t.same(validateDocument(normalised).issues, []);
  t.notMatch(JSON.stringify(normalised), /"additionalProperties":false/);
});

/** Arbitrary schema-like trees built from the keywords normalisation cares about. */
const { schema: schemaArb } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'schema' },
    fc.record({ type: fc.constantFrom('string', 'object') }),
    fc.record({
      type: fc.constantFrom('object', 'array', 'string'),
      additionalProperties: fc.oneof(fc.constant(false), fc.constant(true), tie('schema')),
      unevaluatedProperties: fc.constant(false),
      unevaluatedItems: fc.boolean(),
      items: tie('schema'),
      properties: fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'items'), tie('schema'), { maxKeys: 3 }),
      anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }),
    }, { requiredKeys: [] }),
  ),
}));

t.test('normalisation is idempotent and never modifies its input (property-based)', async (t) => {
  fc.assert(fc.property(schemaArb, (json) => {
    const doc = { json, ui: {} };
    const snapshot = JSON.stringify(doc);
    const once = normaliseDocument(doc);
    const twice = normaliseDocument(once);
    if (JSON.stringify(doc) !== snapshot) return false;
    return JSON.stringify(twice) === JSON.stringify(once);
  }), { numRuns: 300 });
  t.pass('300 random schemas');
});

t.test('anything that is not an envelope comes back as a copy', async (t) => {
  for (const value of [null, 3, 'x', [1, { a: 1 }], { ui: {} }, { json: 'x', ui: {} }]) {
    t.same(normaliseDocument(value), value);
  }
  const arr = [{ a: 1 }];
  t.not(normaliseDocument(arr), arr);
});
