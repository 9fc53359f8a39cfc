/**
 * fast-check generators of large and adversarial event type documents and event_details, for
 * the fuzz suite (test/server/fuzz.test.ts). Sizes are drawn as numbers and the structures built
 * from them, so a case of ~1 MB costs one allocation, not a million generated values; every
 * case stays under the default 1 MB body limit, so it reaches validation.
 */
import fc from 'fast-check';

export const SCHEMA_RUNS = Number(process.env.FUZZ_SCHEMA_RUNS ?? 30);

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const CHOICES = '/api/v2.0/schemas/choices.json?field=fuzz_species';

/** Patterns that backtrack exponentially in ECMA-262 engines, patterns RE2 refuses, and plain ones. */
const PATTERNS = [
  '^(a+)+$', '^(a|aa)+$', '^(a|a?)+$', '^([a-z]+\\s?)*$', '(x+x+)+y', '^(\\w+\\d?)+$', '^(?!admin)', '(a)\\1', '^[a-z]{1,40}$', '\\p{L}+',
  // Just under the program-size cap and defeating RE2's DFA; then far over it (refused).
  '(a|b)*a(a|b){47}$', `(${Array.from({ length: 100 }, (_, i) => `a{0,${(i % 50) + 1}}`).join('')})*b`,
];
const TYPO_KEYWORDS = ['tpye', 'minLenght', 'propertys', 'requird', 'maxItem', 'patern', 'enm', 'itmes', 'formt', 'descripton'];

export interface AdversarialSchema {
  label: string;
  document: unknown;
  /** The data fields the document declares (what event_details generators aim at). */
  fieldNames: { text: string; choices: string };
}

export const adversarialSchema: fc.Arbitrary<AdversarialSchema> = fc.record({
  pattern: fc.constantFrom(...PATTERNS),
  unknownKeywords: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 10_000 }), weight: 1 }),
  hugeKeyword: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1_000, max: 400_000 }), weight: 1 }),
  metaErrors: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 10_000 }), weight: 1 }),
  depth: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 400 }), weight: 1 }),
  patternProperties: fc.integer({ min: 0, max: 3 }),
  refChain: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 60 }), weight: 1 }),
}).map((g) => {
  const properties: Record<string, unknown> = {
    code: { type: 'string', title: 'Code', pattern: g.pattern },
    tags: { type: 'array', title: 'Tags', uniqueItems: true, items: { type: 'string', anyOf: [{ $ref: CHOICES }] } },
  };
  const json: Record<string, unknown> = { $schema: DRAFT, type: 'object', additionalProperties: false, properties };
  for (let i = 0; i < g.unknownKeywords; i++) (properties[`extra${i}`] = { type: 'string', [TYPO_KEYWORDS[i % TYPO_KEYWORDS.length]! + (i % 97)]: 1 });
  if (g.hugeKeyword > 0) json[`t${'y'.repeat(g.hugeKeyword)}pe`] = 'string';
  for (let i = 0; i < g.metaErrors; i++) properties[`wrong${i}`] = { type: i % 2 === 0 ? 5 : 'strin', minimum: 'x' };
  if (g.depth > 0) {
    let nested: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < g.depth; i++) nested = { type: 'object', properties: { n: nested } };
    properties.deep = nested;
  }
  if (g.refChain > 0) {
    // Each definition refers twice to the next: 2^refChain subschemas once references are followed.
    const $defs: Record<string, unknown> = { [`d${g.refChain}`]: { type: 'string', pattern: '^(a|b)*a(a|b){47}$' } };
    for (let i = 0; i < g.refChain; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    json.$defs = $defs;
    properties.code = { title: 'Code', $ref: '#/$defs/d0' };
  }
  if (g.patternProperties > 0) {
    json.patternProperties = Object.fromEntries(PATTERNS.slice(0, g.patternProperties).map((p) => [p, { type: 'integer' }]));
  }
  return {
    label: `pattern ${g.pattern}, ${g.unknownKeywords} unknown keywords, huge keyword ${g.hugeKeyword}, ${g.metaErrors} meta errors, depth ${g.depth}, ${g.patternProperties} patternProperties, $ref chain ${g.refChain}`,
    document: {
      json,
      ui: {
        fields: {
          code: { type: 'TEXT', inputType: 'SHORT_TEXT' },
          tags: { type: 'CHOICE_LIST', inputType: 'CHECKBOX', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: ['fuzz_species'] } },
        },
        sections: {}, order: [], headers: {},
      },
    },
    fieldNames: { text: 'code', choices: 'tags' },
  };
});

export interface AdversarialDetails {
  label: string;
  build(fields: AdversarialSchema['fieldNames']): Record<string, unknown>;
}

export const adversarialDetails: fc.Arbitrary<AdversarialDetails> = fc.record({
  invalidChoices: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30_000 })),
  validChoices: fc.integer({ min: 0, max: 3 }),
  textLength: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1_000, max: 300_000 })),
  textEnd: fc.constantFrom('!', '', ' ', 'a1'),
  undeclared: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20_000 })),
  depth: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000 })),
}).map((g) => ({
  label: `${g.invalidChoices} invalid choices, text of ${g.textLength}, ${g.undeclared} undeclared fields, depth ${g.depth}`,
  build(fields) {
    const details: Record<string, unknown> = {
      [fields.text]: 'a'.repeat(g.textLength) + g.textEnd,
      [fields.choices]: [...['lion', 'eland', 'zebra'].slice(0, g.validChoices), ...Array.from({ length: g.invalidChoices }, (_, i) => `w${i}`)],
    };
    for (let i = 0; i < g.undeclared; i++) details[`u${i}`] = i;
    if (g.depth > 0) {
      let nested: unknown = 'a'.repeat(30) + '!';
      for (let i = 0; i < g.depth; i++) nested = { n: nested };
      details.deep = nested;
    }
    return details;
  },
}));
