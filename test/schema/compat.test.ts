/**
 * The breaking-change lint (issue 28, part 2): each rule with a case that triggers it, with exact
 * counts, and similar ones that must not (no stored event holds it; widened; unrelated change);
 * lower bounds from incomplete summaries; allowed breaks.
 */
import t from 'tap';
import { checkCompatibility, summariseEvents, type CompatFinding, type CompatInput, type UsageSummary } from '../../schema/compat/index.js';
import type { ChoiceLookup } from '../../schema/diff/index.js';

type Doc = { json: Record<string, any>; ui: Record<string, any> };
const ref = (list: string): string => `https://fieldops.example/api/v2.0/schemas/choices.json?field=${list}`;
const entry = (value: string): { value: string; display: string } => ({ value, display: value.toUpperCase() });
const LISTS: Record<string, Array<{ value: string; display: string }>> = {
  species: ['elephant', 'zebra', 'okapi'].map(entry),
  species_no_zebra: ['elephant', 'okapi'].map(entry),
  species_no_okapi: ['elephant', 'zebra'].map(entry),
};
const lookup: ChoiceLookup = (list) => LISTS[list] ?? null;

function baseDoc(): Doc {
  return {
    json: {
      type: 'object', required: ['a'],
      properties: {
        a: { type: 'string', title: 'Reporter', maxLength: 40 },
        n: { type: 'number', title: 'Weight', minimum: 0, maximum: 1000 },
        i: { type: 'integer', title: 'Count' },
        c: { type: 'string', title: 'Colour', enum: ['red', 'blue', 'green'] },
        k: { type: 'string', title: 'Kind', oneOf: [{ const: 'big', title: 'Big' }, { const: 'small', title: 'Small' }] },
        m: { type: 'array', title: 'Marks', items: { type: 'string', enum: ['p', 'q', 'r'] } },
        sp: { type: 'string', title: 'Species', anyOf: [{ $ref: ref('species') }] },
        s: { type: 'string', title: 'Note' },
        unused: { type: 'string', title: 'Never filled', enum: ['x', 'y'] },
      },
    },
    ui: { fields: {}, order: [], sections: {}, headers: {} },
  };
}

const EVENTS: Array<Record<string, unknown>> = [
  { a: 'ann', n: 2.5, i: 3, c: 'red', k: 'big', m: ['p', 'q'], sp: 'elephant', s: 'AB-1' },
  { a: 'bob', n: 10, i: 4, c: 'red', k: 'small', m: ['p'], sp: 'zebra', s: 'AB-2' },
  { a: 'cy', n: 700, c: 'blue', m: ['q'], sp: 'zebra', s: 'free text' },
  { a: 'dee', i: 5, c: 'red' },
  { n: 4 },
];
const usage = summariseEvents('hwc', EVENTS);

function check(mutate: (d: Doc) => void, extra: Partial<CompatInput> = {}): CompatFinding[] {
  const after = baseDoc();
  mutate(after);
  return checkCompatibility({ before: baseDoc(), after, beforeValue: 'hwc', afterValue: 'hwc', usage, choices: lookup, ...extra }).findings;
}
const brief = (fs: CompatFinding[]): string[] => fs.map((f) => `${f.rule} ${f.field ?? '-'} ${f.affected_events}${f.affected_at_least ? '+' : ''} ${f.pointer}`);
const props = (d: Doc): Record<string, any> => d.json.properties;

t.test('identical documents, a new type, an unknown usage: no findings', async (t) => {
  t.same(check(() => {}), []);
  const after = baseDoc();
  delete props(after).a;
  t.same(checkCompatibility({ before: null, after, beforeValue: 'x', afterValue: 'x', usage }).findings, []);
  t.same(checkCompatibility({ before: baseDoc(), after, beforeValue: 'x', afterValue: 'y', usage: null }).findings, []);
  const r = checkCompatibility({ before: baseDoc(), after, beforeValue: 'hwc', afterValue: 'hwc', usage });
  t.ok(r.diff.changes.some((c) => c.kind === 'field.removed'), 'the diff comes along');
});

t.test('removed-field', async (t) => {
  const fs = check((d) => { delete props(d).n; });
  t.same(brief(fs), ['breaking/removed-field n 4 /json/properties/n']);
  t.equal(fs[0]!.severity, 'error');
  t.match(fs[0]!.message, /field `n` removed: 4 stored events hold it/);
  t.ok(fs[0]!.hint.length > 0);
  t.same(check((d) => { delete props(d).unused; }), [], 'no stored event holds it');
  const renamed = check((d) => { props(d).weight_kg = props(d).n; delete props(d).n; });
  t.same(brief(renamed), ['breaking/removed-field n 4 /json/properties/weight_kg']);
  t.match(renamed[0]!.message, /looks renamed to `weight_kg`/);
});

t.test('removed-choice: inline enum, oneOf const, multi-select items, choices.json list', async (t) => {
  t.same(brief(check((d) => { props(d).c.enum = ['blue', 'green']; })), ['breaking/removed-choice c 3 /json/properties/c']);
  t.same(check((d) => { props(d).c.enum = ['red', 'blue']; }), [], 'green: no event holds it');
  t.same(check((d) => { props(d).c.enum = ['red', 'blue', 'green', 'white']; }), [], 'widened');
  t.same(brief(check((d) => { props(d).k.oneOf = [{ const: 'big', title: 'Big' }]; })), ['breaking/removed-choice k 1 /json/properties/k']);
  const multi = check((d) => { props(d).m.items.enum = ['q', 'r']; });
  t.same(brief(multi), ['breaking/removed-choice m 2 /json/properties/m/items']);
  t.match(multi[0]!.message, /choice "p" removed from `m`: 2 stored events hold it/);
  // both p and q removed: 3 events hold one of them, the summary proves at least 2
  t.same(brief(check((d) => { props(d).m.items.enum = ['r']; })), ['breaking/removed-choice m 2+ /json/properties/m/items']);
  const list = (name: string) => (d: Doc): void => { props(d).sp.anyOf = [{ $ref: ref(name) }]; };
  t.same(brief(check(list('species_no_zebra'))), ['breaking/removed-choice sp 2 /json/properties/sp'], 'a list without zebra');
  t.same(check(list('species_no_okapi')), [], 'okapi: no event holds it');
  t.same(check(list('unknown_list')), [], 'an unresolved list: values unknown, no claim');
  t.same(check((d) => { props(d).unused.enum = ['x']; }), [], 'a field no event holds');
});

t.test('narrowed-type: number → integer, type changes, bounds, lengths, pattern, enum on a free field', async (t) => {
  const int = check((d) => { props(d).n.type = 'integer'; });
  t.same(brief(int), ['breaking/narrowed-type n 1 /json/properties/n/type']);
  t.match(int[0]!.message, /1 stored event hold number values/);
  t.same(check((d) => { props(d).i.type = 'number'; }), [], 'integer → number widens');
  t.same(check((d) => { props(d).i.minimum = 0; }), [], 'a bound every stored value meets');
  t.same(brief(check((d) => { props(d).i.type = 'string'; })), ['breaking/narrowed-type i 3 /json/properties/i/type']);
  t.same(brief(check((d) => { props(d).n.maximum = 100; })), ['breaking/narrowed-type n 1 /json/properties/n/maximum']);
  t.same(brief(check((d) => { props(d).n.exclusiveMinimum = 2.5; })), ['breaking/narrowed-type n 1 /json/properties/n/exclusiveMinimum']);
  t.same(check((d) => { props(d).n.maximum = 5000; }), [], 'widened');
  t.same(brief(check((d) => { props(d).a.maxLength = 2; })), ['breaking/narrowed-type a 3 /json/properties/a/maxLength']);
  t.same(brief(check((d) => { props(d).s.pattern = '^AB-[0-9]$'; })), ['breaking/narrowed-type s 1 /json/properties/s/pattern']);
  t.same(check((d) => { props(d).s.pattern = '^(AB-[0-9]|free text)$'; }), [], 'a pattern every stored value matches');
  t.same(brief(check((d) => { props(d).s.enum = ['AB-1', 'AB-2']; })), ['breaking/narrowed-type s 1 /json/properties/s']);
  t.same(brief(check((d) => { props(d).i.enum = [3, 4]; })), ['breaking/narrowed-type i 1 /json/properties/i']);
  t.same(brief(check((d) => { props(d).m.items.type = 'integer'; delete props(d).m.items.enum; })), ['breaking/narrowed-type m 2+ /json/properties/m/type']);
  t.same(brief(check((d) => { props(d).c = { type: 'array', items: { type: 'string', enum: ['red', 'blue', 'green'] } }; })), ['breaking/narrowed-type c 4 /json/properties/c/type'], 'single → multi-select: every stored string');
  const nulls = summariseEvents('hwc', [{ s: null }, { s: 'x' }, { s: null }]);
  t.same(brief(check((d) => { props(d).s.type = 'string'; }, { usage: nulls, before: ((): Doc => { const b = baseDoc(); props(b).s.type = ['string', 'null']; return b; })() })), ['breaking/narrowed-type s 2 /json/properties/s/type'], 'null no longer accepted');
  t.same(check((d) => { props(d).unused.type = 'integer'; }), [], 'a field no event holds');
  t.same(check((d) => { props(d).a.title = 'Who'; props(d).n.description = 'kg'; }), [], 'unrelated changes');
});

t.test('values the current revision already refuses are not this change\'s doing', async (t) => {
  // 2000 is beyond the current maximum (stored before it, or written around validation)
  const u = summariseEvents('hwc', [{ n: 2000 }, { n: 950 }, { n: 10 }]);
  t.same(brief(check((d) => { props(d).n.maximum = 900; }, { usage: u })), ['breaking/narrowed-type n 1 /json/properties/n/maximum']);
  t.same(check((d) => { props(d).n.title = 'Mass'; }, { usage: u }), [], 'an unrelated change');
});

t.test('narrowed-type from an incomplete summary: exact for new choices, lower bounds otherwise', async (t) => {
  const long = 'L'.repeat(250);
  const events = [{ s: 'a' }, { s: 'b' }, { s: long }, { s: long + '!' }, { s: 3 }];
  const u = summariseEvents('hwc', events);
  t.equal(u.fields.s!.values_complete, false);
  const run = (mutate: (d: Doc) => void, summary: UsageSummary = u): string[] => brief(check(mutate, { usage: summary }));
  t.same(run((d) => { props(d).s.enum = ['a']; }), ['breaking/narrowed-type s 3 /json/properties/s'], 'b and both long strings, exactly');
  t.same(run((d) => { props(d).s.maxLength = 100; }), ['breaking/narrowed-type s 1+ /json/properties/s/maxLength'], 'max_length proves one');
  t.same(run((d) => { props(d).s.pattern = '^[ab]$'; }), [], 'unlisted values cannot be tested, listed ones match');
  // 0..999 held twice (listed), 1000..1199 once (cut)
  const many = summariseEvents('hwc', Array.from({ length: 2200 }, (_, i) => ({ i: i < 2000 ? i % 1000 : i - 1000 })));
  t.equal(many.fields.i!.values.length, 1000);
  t.same(run((d) => { props(d).i.maximum = 1100; }, many), ['breaking/narrowed-type i 1+ /json/properties/i/maximum'], 'max beyond the new bound, unlisted');
  t.same(run((d) => { props(d).i.maximum = 5; }, many), ['breaking/narrowed-type i 1988+ /json/properties/i/maximum'], 'listed refusals, a lower bound');
  t.same(run((d) => { props(d).i.maximum = 5000; }, many), []);
});

t.test('required-added', async (t) => {
  t.same(brief(check((d) => { d.json.required = ['a', 'i']; })), ['breaking/required-added i 2 /json/required']);
  t.same(check((d) => { d.json.required = []; }), [], 'dropped');
  const added = check((d) => { props(d).ranger = { type: 'string' }; d.json.required = ['a', 'ranger']; });
  t.same(brief(added), ['breaking/required-added ranger 5 /json/required']);
  t.match(added[0]!.message, /5 stored events lack it/);
  t.same(check((d) => { props(d).ranger = { type: 'string' }; }), [], 'a new optional field');
  const all = summariseEvents('hwc', [{ i: 1 }, { i: 2 }]);
  t.same(check((d) => { d.json.required = ['a', 'i']; }, { usage: all }), [], 'every stored event holds it');
  t.same(brief(check((d) => { d.json.required = ['a', 'ghost']; })), ['breaking/required-added ghost 5 /json/required'], 'a name no property defines');
});

t.test('renamed-value', async (t) => {
  const fs = check(() => {}, { afterValue: 'hwc_v2' });
  t.same(brief(fs), ['breaking/renamed-value - 5 ']);
  t.match(fs[0]!.message, /from `hwc` to `hwc_v2`/);
  t.same(check(() => {}, { afterValue: 'hwc_v2', usage: summariseEvents('hwc', []) }), [], 'no stored events');
});

t.test('allowed breaks become warnings with their reason; others stay errors', async (t) => {
  const fs = check((d) => { delete props(d).n; d.json.required = ['a', 'i']; }, { allow: [{ rule: 'breaking/removed-field', reason: 'weight moved to a sensor' }] });
  t.same(fs.map((f) => [f.rule, f.severity, f.allowed?.reason]), [
    ['breaking/removed-field', 'warning', 'weight moved to a sensor'],
    ['breaking/required-added', 'error', undefined],
  ]);
});
