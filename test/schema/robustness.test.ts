/**
 * Bad input must never crash the toolkit (the server answers 4xx, never 500): arbitrary JSON in
 * every slot of a document, arbitrary text as v1 documents and as JSON sources.
 */
import fc from 'fast-check';
import t from 'tap';
import {
  analyseDocument, classifyStoredDocument, locatePointer, migrateV1ToV2, normaliseDocument, parseV1, preRender, renderV1,
} from '../../schema/index.js';

const keywordish = fc.constantFrom('type', 'properties', 'items', 'anyOf', '$ref', 'required', 'enum', 'fields', 'sections',
  'order', 'parent', 'leftColumn', 'name', 'pattern', 'minimum', 'format', '__proto__', 'additionalProperties', 'const');
const jsonish = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'v' },
    fc.constantFrom(null, true, false, 0, -1.5, '', 'object', 'string', 'array', '#/$defs/x', '/v2.0/schemas/choices.json?field=a', 'section-1', '[a'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(keywordish, fc.string({ maxLength: 4 })), tie('value'), { maxKeys: 4 }),
  ),
})).value;

t.test('validation, normalisation and pre-rendering never throw on arbitrary documents', async (t) => {
  await fc.assert(fc.asyncProperty(jsonish, jsonish, async (json, ui) => {
    const doc = { json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', ...(typeof json === 'object' && json !== null && !Array.isArray(json) ? json : { properties: json }) }, ui };
    const result = analyseDocument(doc, { compile: true });
    if (!result.issues.every((i) => typeof i.pointer === 'string' && i.hints.length > 0)) return false;
    normaliseDocument(doc);
    classifyStoredDocument(doc);
    await preRender(doc, () => [{ value: 'a', display: 'A' }]);
    return true;
  }), { numRuns: 400 });
  t.pass('400 random documents');
});

t.test('v1 parsing, rendering and migration never throw on arbitrary text', async (t) => {
  const fragments = fc.constantFrom('{', '}', '{{', '}}', '{ {', 'enum___a___values', '"schema":', '"definition":', '[', ']', ',', ':', '"x"', '1', 'null', '\n', ' ', '"properties"', '{"key": "a"}');
  fc.assert(fc.property(fc.array(fragments, { maxLength: 30 }), (parts) => {
    const text = parts.join('');
    parseV1(text);
    renderV1(text, {});
    migrateV1ToV2(text, { baseUrl: '' });
    locatePointer(text, '/schema/properties');
    return true;
  }), { numRuns: 500 });
  t.pass('500 random texts');
});
