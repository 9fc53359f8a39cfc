import fc from 'fast-check';
import t from 'tap';
import { buildEventDetailsValidator, DRAFT_2020_12, MAX_DETAILS_ISSUES, validateDocument, type SchemaIssue } from '../../schema/index.js';
import { boundedEditDistance, closestKeyword } from '../../schema/keywords.js';
import { MAX_KEYWORD_SUGGESTIONS } from '../../schema/keyword-checks.js';
import { metaSchemaIssues } from '../../schema/meta-schema.js';
import { MAX_SCHEMA_DEPTH } from '../../schema/schema-depth.js';
import { MAX_PATTERN_LENGTH, MAX_PATTERN_PROGRAM } from '../../schema/regex-engine.js';
import { regexProgramSize } from '../../schema/regex-size.js';
import { describeDelay, heldLoop, withLoopDelay } from '../helpers/loop-delay.js';

/**
 * The denial-of-service findings of the security review (issue 13, items 1-3), each reproduced
 * at (or beyond) the size the review used. Each test asserts a count-based bound (issues capped,
 * suggestions capped, the answer itself) plus a generous event-loop delay bound; on the code
 * before the fix the first two took 47 s and 17 s, and the counts were unbounded.
 */

const choices = Array.from({ length: 30 }, (_, i) => ({ const: `choice_${i}`, title: `Choice ${i}` }));
const multiChoice = (shape: 'anyOf' | 'enum') => ({
  $schema: DRAFT_2020_12, type: 'object',
  properties: { tags: { type: 'array', items: shape === 'anyOf' ? { anyOf: choices } : { enum: choices.map((c) => c.const) } } },
});

t.test('item 1: 1,500 invalid multi-choice values: capped issues plus a count, in linear time', async (t) => {
  for (const shape of ['anyOf', 'enum'] as const) {
    const validate = buildEventDetailsValidator(multiChoice(shape));
    const details = { tags: Array.from({ length: 1500 }, (_, i) => `wrong_${i}`) };
    t.ok(JSON.stringify(details).length < 25_000, 'a small body');
    const measured = await withLoopDelay(() => validate(details));
    t.equal(measured.result.valid, false, shape);
    t.equal(measured.result.issues.length, MAX_DETAILS_ISSUES + 1, `${shape}: the first ${MAX_DETAILS_ISSUES} issues and one count`);
    t.same(measured.result.issues.slice(0, 3).map((i: SchemaIssue) => i.pointer), ['/tags/0', '/tags/1', '/tags/2'], 'in data order');
    const last = measured.result.issues.at(-1)!;
    t.match(last, { code: 'issues_truncated', category: 'validation', severity: 'error', pointer: '' });
    t.match(last.message, /^1400 more problems not listed \(1500 in all/);
    t.ok(measured.result.issues.every((i: SchemaIssue) => i.hints.join(' ').length < 2000), 'hints quote a bounded number of allowed values');
    t.notOk(heldLoop(measured), `${shape}: ${describeDelay(measured)}`);
  }
});

t.test('item 1: below the cap every issue is reported, and nested alternatives fold into one issue each', async (t) => {
  const validate = buildEventDetailsValidator({
    $schema: DRAFT_2020_12, type: 'object',
    properties: {
      a: { anyOf: [{ const: 'x' }, { anyOf: [{ const: 'y' }, { const: 'z' }] }] },
      b: { oneOf: [{ type: 'integer' }, { type: 'boolean' }] },
      c: { type: 'array', items: { anyOf: choices } },
    },
  });
  const { valid, issues } = validate({ a: 'q', b: 'q', c: ['choice_1', 'nope', 'choice_2', 'bad'] });
  t.equal(valid, false);
  t.same(issues.map((i) => i.pointer), ['/a', '/b', '/c/1', '/c/3']);
  t.match(issues[0], { message: /not one of the allowed choices/, hints: ['use one of: "x"'] });
  t.same(issues[1]!.hints, ['one alternative says: must be integer', 'one alternative says: must be boolean']);
  t.match(issues[2]!.hints[0], /^use one of: "choice_0", .*"choice_19", \.\.\.$/);
});

t.test('item 2: a catastrophic pattern matches in linear time (RE2), in pattern and patternProperties', async (t) => {
  const validate = buildEventDetailsValidator({
    $schema: DRAFT_2020_12, type: 'object',
    properties: { code: { type: 'string', pattern: '^(a+)+$' } },
    patternProperties: { '^(b+)+$': { type: 'integer' } },
  });
  const measured = await withLoopDelay(() => [
    validate({ code: `${'a'.repeat(31)}!` }),
    validate({ code: `${'a'.repeat(100_000)}!` }),
    validate({ code: 'a'.repeat(100_000) }),
    validate({ [`${'b'.repeat(40)}`]: 'not an integer', [`${'b'.repeat(40)}!`]: 'ignored' }),
  ]);
  t.equal(measured.result[0]!.valid, false, '31 a and ! do not match');
  t.match(measured.result[0]!.issues[0], { pointer: '/code', message: /must match pattern/ });
  t.equal(measured.result[1]!.valid, false);
  t.equal(measured.result[2]!.valid, true, 'the pattern still matches what it should');
  t.same(measured.result[3]!.issues.map((i) => i.pointer), [`/${'b'.repeat(40)}`], 'patternProperties keys are matched by the same engine');
  t.notOk(heldLoop(measured), `${describeDelay(measured)}`);
});

t.test('item 2: patterns the linear-time engine cannot run are refused when written, with a hint', async (t) => {
  const doc = (pattern: string, key = '^k') => ({
    json: {
      $schema: DRAFT_2020_12, type: 'object', additionalProperties: false,
      properties: { f: { type: 'string', title: 'F', pattern } },
      patternProperties: { [key]: { type: 'string' } },
    },
    ui: {},
  });
  const refused = (pattern: string, key?: string) =>
    validateDocument(doc(pattern, key)).issues.filter((i) => i.severity === 'error' && /pattern/.test(i.pointer));
  for (const [pattern, construct] of [['(a)\\1', /backreferences/], ['(?<x>a)\\k<x>', /backreferences/], ['^(?=a)', /lookaround/], ['(?<!a)b', /lookaround/]] as const) {
    const issues = refused(pattern);
    t.equal(issues.length, 1, pattern);
    t.match(issues[0], { code: 'schema_validation_error', pointer: '/json/properties/f/pattern', message: construct, hints: [/RE2 in linear time/] });
  }
  t.match(refused('^a', '(?!x)y')[0], { pointer: '/json/patternProperties/(?!x)y', message: /lookaround/ });
  t.match(refused('(')[0], { message: /cannot be used/, hints: [/ECMA-262/] }, 'invalid ECMA-262 is still refused');
  for (const ok of ['^(a+)+$', '^[a-z0-9_-]{1,40}$', '^\\p{L}+$', '\\u00e9', '^\\d{4}-\\d{2}$']) t.same(refused(ok), [], `${ok} is accepted`);
});

t.test('item 3: unknown-keyword hints do bounded work on a 400 KB document', async (t) => {
  const huge = `t${'y'.repeat(400_000)}pe`;
  const measured = await withLoopDelay(() => ({
    closest: closestKeyword(huge),
    validation: validateDocument({ json: { $schema: DRAFT_2020_12, type: 'object', [huge]: 1 }, ui: {} }),
  }));
  t.equal(measured.result.closest, undefined, 'a word far longer than any keyword is never compared');
  const unknown = measured.result.validation.issues.find((i) => i.message.startsWith('unknown keyword'));
  t.ok(unknown && unknown.message.length < 200, 'the message quotes a bounded prefix of the keyword');
  t.notOk(heldLoop(measured), `${describeDelay(measured)}`);
  t.equal(closestKeyword('tpye'), 'type');
  t.equal(closestKeyword('minLenght'), 'minLength');
  t.equal(closestKeyword('PROPERTIES'), 'properties');
  t.equal(closestKeyword('zzzzzz'), undefined);
});

t.test('item 3: "did you mean" is computed for a bounded number of unknown keywords per document', async (t) => {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < MAX_KEYWORD_SUGGESTIONS + 50; i++) properties[`f${i}`] = { type: 'string', minLenght: 1 };
  const { issues } = validateDocument({ json: { $schema: DRAFT_2020_12, type: 'object', properties }, ui: {} });
  const unknown = issues.filter((i) => i.message === 'unknown keyword `minLenght`');
  t.equal(unknown.length, MAX_KEYWORD_SUGGESTIONS + 50, 'every unknown keyword is still reported');
  t.equal(unknown.filter((i) => i.hints[0] === 'did you mean `minLength`?').length, MAX_KEYWORD_SUGGESTIONS, 'suggestions are capped');
});

t.test('item 3: the bounded edit distance agrees with the full one up to its bound', async (t) => {
  const fullDistance = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
    return d[a.length]![b.length]!;
  };
  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 9 });
  fc.assert(fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => boundedEditDistance(a, b, max) === Math.min(fullDistance(a, b), max + 1)), { numRuns: 3000, seed: 13 });
  t.pass('3000 random pairs agree');
});

t.test('a large document full of meta-schema errors is checked in linear time (Ajv errors appended in place)', async (t) => {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 24_000; i++) properties[`f${i}`] = { type: 5 };
  const json = { $schema: DRAFT_2020_12, type: 'object', properties };
  t.ok(JSON.stringify(json).length < 1024 * 1024, 'within the default body limit');
  // The meta-schema pass alone: the rest of validateDocument is linear and only adds noise here.
  const measured = await withLoopDelay(() => metaSchemaIssues(json, '/json'));
  t.equal(measured.result.filter((i) => /^\/json\/properties\/f\d+\/type$/.test(i.pointer)).length, 24_000, 'one issue per wrong `type`');
  t.notOk(heldLoop(measured), `${describeDelay(measured)} (quadratic: about 8 s)`);
});

t.test('uniqueItems over items of no declared type is checked by hashing, not by comparing every pair', async (t) => {
  const validate = buildEventDetailsValidator({ $schema: DRAFT_2020_12, type: 'object', properties: { a: { type: 'array', uniqueItems: true } } });
  const many = Array.from({ length: 50_000 }, (_, i) => ({ k: i, tags: [i % 7] }));
  const measured = await withLoopDelay(() => [validate({ a: many }), validate({ a: [...many, { tags: [3], k: 3 }] })]);
  t.equal(measured.result[0]!.valid, true, '50,000 distinct objects');
  t.match(measured.result[1]!.issues, [{ pointer: '/a', message: /duplicate items \(items ## 3 and 50000 are identical\)/, hints: [/uniqueItems.*#\/properties\/a\/uniqueItems/] }], 'key order does not matter');
  t.notOk(heldLoop(measured), `${describeDelay(measured)} (pairwise: minutes)`);
  t.same(validate({ a: [1, 1.0] }).valid, false, '1 and 1.0 are the same JSON number');
  t.same(validate({ a: [1, true, '1', [1], { '1': 1 }, null, 0, false] }).valid, true, 'values of different types differ');
});

t.test('item 2: patterns are capped in size too, since RE2 costs up to one step per instruction per character', async (t) => {
  t.same(['ab', '^[a-z0-9_-]{1,40}$', '^(a+)+$', '(?:a{10}){10}', 'a|b|c', '(?<y>\\d{4})', '[\\]]{3}'].map(regexProgramSize), [2, 43, 6, 121, 5, 6, 4]);
  const huge = `(${Array.from({ length: 100 }, (_, i) => `a{0,${(i % 50) + 1}}`).join('')})*b`;
  t.ok(regexProgramSize(huge) > MAX_PATTERN_PROGRAM, 'the pattern that took 12 s per 100,000 characters');
  const doc = { json: { $schema: DRAFT_2020_12, type: 'object', properties: { f: { type: 'string', title: 'F', pattern: huge } } }, ui: {} };
  t.match(validateDocument(doc).issues.filter((i) => i.severity === 'error'), [{ pointer: '/json/properties/f/pattern', message: /matching steps per character \(at most 200\)/, hints: [/counted repetitions/] }]);
  t.match(validateDocument({ ...doc, json: { ...doc.json, properties: { f: { type: 'string', title: 'F', pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1) } } } }).issues, [{ message: /longer than 1000 characters/ }]);
  t.throws(() => buildEventDetailsValidator({ type: 'object', properties: { f: { pattern: huge } } }), /does not compile.*refused/, 'a stored pattern over the cap never runs');
  const heavy = '^(a|b)*a(a|b){47}$';
  t.ok(regexProgramSize(heavy) <= MAX_PATTERN_PROGRAM, 'a DFA-defeating pattern just under the cap');
  const validate = buildEventDetailsValidator({ type: 'object', properties: { f: { type: 'string', pattern: heavy } } });
  let input = '';
  for (let i = 0, x = 7; i < 300_000; i++) input += ((x = (x * 1103515245 + 12345) & 0x7fffffff) >> 16) & 1 ? 'a' : 'b';
  const measured = await withLoopDelay(() => validate({ f: `${input}c` }));
  t.equal(measured.result.valid, false);
  t.notOk(heldLoop(measured), `300,000 characters against it: ${describeDelay(measured)}`);
});

t.test('item 2: one value against many patterns: the pattern work of a validation is budgeted', async (t) => {
  const heavy = '^(a|b)*a(a|b){47}$';
  const validate = buildEventDetailsValidator({ type: 'object', properties: { s: { type: 'string', allOf: Array.from({ length: 300 }, () => ({ pattern: heavy })) } } });
  const measured = await withLoopDelay(() => validate({ s: 'ab'.repeat(200_000) }));
  t.equal(measured.result.valid, false);
  t.match(measured.result.issues, [{ code: 'event_details_invalid', pointer: '', message: /more regular-expression work than one validation may do/, hints: [/maxLength/] }]);
  t.notOk(heldLoop(measured), `${describeDelay(measured)}`);
  t.equal(validate({ s: 'b'.repeat(100) }).valid, false, 'short values are still checked against every pattern');
  t.equal(validate({ s: `${'ab'.repeat(50)}a${'b'.repeat(47)}` }).valid, true);
});

t.test('references that expand a document exponentially are refused when written; recursion and reuse are fine', async (t) => {
  const $defs: Record<string, unknown> = { d40: { type: 'string', minLength: 1 } };
  for (let i = 0; i < 40; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  const doc = (properties: Record<string, unknown>, defs: Record<string, unknown>) =>
    ({ json: { $schema: DRAFT_2020_12, type: 'object', properties, $defs: defs }, ui: {} });
  const errors = (d: unknown) => validateDocument(d).issues.filter((i) => i.severity === 'error');
  const measured = await withLoopDelay(() => errors(doc({ f: { title: 'F', $ref: '#/$defs/d0' } }, $defs)));
  t.match(measured.result, [{ code: 'schema_validation_error', pointer: '/json', message: /references expand it to [0-9,]{15,} subschemas \(at most 200,000\)/ }]);
  t.notOk(heldLoop(measured), `${describeDelay(measured)}`);
  const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/tree' } } } };
  t.same(errors(doc({ f: { title: 'F', $ref: '#/$defs/tree' } }, { tree })).filter((i) => /expand/.test(i.message)), [], 'a recursive definition');
  const name = { type: 'string', maxLength: 40 };
  const reused = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, { title: 'F', $ref: '#/$defs/name' }]));
  t.same(errors(doc(reused, { name })).filter((i) => /expand/.test(i.message)), [], 'one definition used by 50 fields');
});

t.test('deeply nested schemas are refused before any recursive check runs (Ajv overflowed its stack at ~800 levels)', async (t) => {
  for (const depth of [MAX_SCHEMA_DEPTH + 5, 5_000]) {
    let nested: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < depth; i++) nested = { type: 'object', properties: { n: nested } };
    const measured = await withLoopDelay(() => validateDocument({ json: { $schema: DRAFT_2020_12, type: 'object', properties: { deep: nested } }, ui: {} }));
    t.match(measured.result.issues, [{ code: 'schema_validation_error', message: `subschemas nest more than ${MAX_SCHEMA_DEPTH} levels deep here` }], `depth ${depth}`);
    t.notOk(heldLoop(measured), `${describeDelay(measured)}`);
  }
  let ok: Record<string, unknown> = { type: 'string', title: 'Leaf' };
  for (let i = 0; i < 5; i++) ok = { type: 'object', title: 'Level', properties: { n: ok } };
  t.notOk(validateDocument({ json: { $schema: DRAFT_2020_12, type: 'object', properties: { deep: ok } }, ui: {} }).issues.some((i) => /nest more/.test(i.message)), 'a few levels are fine');
});
