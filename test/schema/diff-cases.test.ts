/**
 * The semantic schema diff (issue 28, part 1), review findings: `required` names without a
 * property, inline choices beside an unresolved list, `enum` with `anyOf` (an intersection),
 * constraint defaults and `multipleOf` ratios, `ui` entries added or removed, prototype keys,
 * key-order independence of the rename heuristic and of sections, displays and descriptions of
 * choices; boolean schemas, `$ref`/`$defs`/`allOf`, a missing `ui`; renderers with 200,000
 * changes; hostile depth and size (SchemaDiffLimitError, never a stack overflow). Each case
 * fails without its fix. No timing is asserted (performance lives in the benches).
 */
import t from 'tap';
import { DRAFT_2020_12 } from '../../schema/index.js';
import {
  diffSchemaDocuments, MAX_UI_ENTRIES, renderJson, renderMarkdown, renderStylish, SchemaDiffLimitError, type Change, type SchemaDiff,
} from '../../schema/diff/index.js';

type Doc = { json: any; ui?: any };
const ref = (list: string): string => `https://fieldops.example/api/v2.0/schemas/choices.json?field=${list}`;
const entries = (...names: string[]): Array<{ name: string; type: string }> => names.map((name) => ({ name, type: 'field' }));

function baseDoc(): Doc {
  return {
    json: {
      $schema: DRAFT_2020_12, type: 'object', required: ['a'],
      properties: {
        a: { type: 'string', title: 'Reporter' },
        c: { type: 'string', title: 'Colour', enum: ['red', 'blue'] },
        k: { type: 'string', title: 'Kind', anyOf: [{ const: 'big', title: 'Big' }, { const: 'small', title: 'Small' }] },
        tags: { type: 'array', title: 'Tags', items: { type: 'string' } },
        animals: { type: 'array', title: 'Animals', items: { type: 'object', required: ['tag'], properties: { tag: { type: 'string', title: 'Ear tag' } } } },
      },
    },
    ui: {
      fields: {
        a: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 's1' }, c: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', parent: 's1' },
        k: { type: 'CHOICE_LIST', inputType: 'RADIO', parent: 's1' }, tags: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 's1' },
        animals: { type: 'COLLECTION', parent: 's2', leftColumn: ['tag'], rightColumn: [] },
      },
      headers: { h1: { label: 'Details', section: 's1', size: 'MEDIUM' } },
      order: ['s1', 's2'],
      sections: {
        s1: { label: 'Main', columns: 2, isActive: true, leftColumn: [{ name: 'h1', type: 'header' }, ...entries('a', 'c')], rightColumn: entries('k', 'tags') },
        s2: { label: 'More', columns: 1, isActive: true, leftColumn: entries('animals'), rightColumn: [] },
      },
    },
  };
}
function mutated(change: (doc: Doc) => void, from: Doc = baseDoc()): Doc {
  const doc = structuredClone(from);
  change(doc);
  return doc;
}
const diff = (after: unknown, before: unknown = baseDoc()): SchemaDiff => diffSchemaDocuments(before, after);
const summary = (d: SchemaDiff): string[] => d.changes.map((c) => `${c.kind} ${c.path}${c.breaking ? ' !' : ''}`);
const props = (doc: Doc): Record<string, any> => doc.json.properties;
const identical = { identical: true, changes: [] };

t.test('required names that no property defines are compared too', async (t) => {
  t.same(summary(diff(mutated((d) => { d.json.required.push('ghost'); }))), ['required.added /json/required !']);
  t.same(summary(diff(baseDoc(), mutated((d) => { d.json.required.push('ghost'); }))), ['required.removed /json/required']);
  t.same(summary(diff(mutated((d) => { props(d).animals.items.required.push('ghost'); }))), ['required.added /json/properties/animals/items/required !']);
  const withObject = mutated((d) => { props(d).o = { type: 'object', title: 'Extra' }; });
  t.same(summary(diff(mutated((d) => { props(d).o.required = ['x']; }, withObject), withObject)), ['required.added /json/properties/o/required !'], 'an object field without properties');
  const ghost = mutated((d) => { d.json.required.push('ghost'); });
  t.same(diff(structuredClone(ghost), ghost), identical, 'the same orphan on both sides');
  t.same(summary(diff(mutated((d) => { delete props(d).a; }))), ['field.removed /json/properties/a !'], 'a removed field still listed as required: one change');
});

t.test('inline choices are compared even when a referenced list is unresolved', async (t) => {
  const withList = mutated((d) => { props(d).r = { type: 'string', title: 'Species', anyOf: [{ $ref: ref('species') }, { const: 'other', title: 'Other' }] }; });
  const changed = diff(mutated((d) => { props(d).r.anyOf[1] = { const: 'unknown', title: 'Unknown' }; }, withList), withList);
  t.same(summary(changed), ['choice.removed /json/properties/r !', 'choice.added /json/properties/r']);
  t.same(changed.changes.map((c) => c.before ?? c.after), ['other', 'unknown']);
  t.same(diff(structuredClone(withList), withList), identical);
});

t.test('enum with anyOf/oneOf on one node: the values both allow (an intersection)', async (t) => {
  const both = mutated((d) => { props(d).c.anyOf = [{ const: 'red' }, { const: 'green' }]; });
  const changed = diff(mutated((d) => { props(d).c.anyOf = [{ const: 'red' }, { const: 'blue' }]; }, both), both);
  t.same(summary(changed), ['choice.added /json/properties/c'], 'blue becomes allowed; green never was');
  t.equal(changed.changes[0]!.after, 'blue');
  t.same(diff(mutated((d) => { props(d).c.anyOf = [{ const: 'red' }, { const: 'yellow' }]; }, both), both), identical, 'outside the enum either way');
});

t.test('constraints: defaults equal absence; multipleOf by ratio', async (t) => {
  t.same(diff(mutated((d) => { props(d).a.minLength = 0; props(d).tags.minItems = 0; props(d).tags.uniqueItems = false; })), identical);
  t.same(summary(diff(mutated((d) => { props(d).tags.uniqueItems = true; }), mutated((d) => { props(d).tags.uniqueItems = false; }))),
    ['constraint.narrowed /json/properties/tags/uniqueItems !']);
  const tiny = mutated((d) => { props(d).n = { type: 'number', title: 'Count', multipleOf: 1e-10 }; });
  const to = (value: number): Doc => mutated((d) => { props(d).n.multipleOf = value; }, tiny);
  t.same(summary(diff(to(1), tiny)), ['constraint.narrowed /json/properties/n/multipleOf !']);
  t.same(summary(diff(tiny, to(1))), ['constraint.widened /json/properties/n/multipleOf']);
  t.same(summary(diff(to(0.75), to(0.5))), ['constraint.changed /json/properties/n/multipleOf !'], 'neither divides the other');
});

t.test('ui: field definitions added or removed, headers placed, other keys', async (t) => {
  t.same(summary(diff(mutated((d) => { delete d.ui.fields.c; }))), ['ui.field_removed /ui/fields/c']);
  t.same(summary(diff(baseDoc(), mutated((d) => { delete d.ui.fields.c; }))), ['ui.field_added /ui/fields/c']);
  t.same(summary(diff(mutated((d) => { d.ui.sections.s1.leftColumn.splice(0, 1); }))), ['layout.header_changed /ui/sections/s1/leftColumn/0']);
  const below = diff(mutated((d) => { const [h, a, c] = d.ui.sections.s1.leftColumn; d.ui.sections.s1.leftColumn = [a, h, c]; }));
  t.same(summary(below), ['layout.header_changed /ui/sections/s1/leftColumn/1'], 'the header moved below a field');
  t.same(summary(diff(mutated((d) => { d.ui.theme = 'dark'; d.ui.sections.s2.collapsed = true; }))), ['layout.section_changed /ui/sections/s2', 'ui.changed /ui/theme']);
});

t.test('prototype names are ordinary keys', async (t) => {
  const added = diff(mutated((d) => { d.ui.headers.toString = { label: 'More' }; }));
  t.same(summary(added), ['layout.header_changed /ui/headers/toString']);
  t.equal(added.changes[0]!.before, undefined);
  t.match(added.changes[0]!.message, /added/);
  const removed = diff(baseDoc(), mutated((d) => { d.ui.headers.constructor = { label: 'More' }; }));
  t.equal(removed.changes[0]!.after, undefined);
  t.match(removed.changes[0]!.message, /removed/);
});

t.test('key order never decides a result', async (t) => {
  const named = (n: number): Record<string, unknown> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${String(i).padStart(2, '0')}`, { type: 'string', title: 'Name' }]));
  const before: Doc = { json: { type: 'object', properties: { old: { type: 'string', title: 'Name' } } } };
  const after: Doc = { json: { type: 'object', properties: named(12) } };
  const permuted: Doc = { json: { type: 'object', properties: Object.fromEntries(Object.entries(named(12)).reverse()) } };
  const plain = diff(after, before);
  t.same(diff(permuted, before), plain, 'more than 8 same-title candidates, one side permuted');
  t.match(plain.changes.find((c) => c.kind === 'field.renamed'), { before: 'old', after: 'n00' });
  const untitled: Doc = { json: { type: 'object', properties: { p: { type: 'string' }, q: { type: 'integer' } } } };
  const one = diff({ json: { type: 'object', properties: { r: { type: 'string' }, q: { type: 'integer' } } } }, untitled);
  const other = diff({ json: { type: 'object', properties: { q: { type: 'integer' }, r: { type: 'string' } } } }, untitled);
  t.same(other, one, 'an unplaced field has no position');
  t.same(summary(one), ['field.removed /json/properties/p !', 'field.added /json/properties/r']);
  const noOrder = mutated((d) => { delete d.ui.order; });
  t.same(diff(mutated((d) => { d.ui.sections = { s2: d.ui.sections.s2, s1: d.ui.sections.s1 }; }, noOrder), noOrder), identical, 'sections without ui.order');
});

t.test('choices: displays added or removed, descriptions, const as a list of one', async (t) => {
  const shown = mutated((d) => { props(d).c['x-enumExtra'] = { red: { display: 'Red' } }; });
  const added = diff(shown);
  t.same(summary(added), ['choice.display_changed /json/properties/c']);
  t.equal(added.changes[0]!.before, undefined);
  t.equal(added.changes[0]!.after, 'Red');
  t.same(summary(diff(baseDoc(), shown)), ['choice.display_changed /json/properties/c']);
  t.same(summary(diff(mutated((d) => { props(d).k.anyOf[0].description = 'over 2 m'; }))), ['choice.description_changed /json/properties/k']);
  t.same(summary(diff(mutated((d) => { props(d).k.anyOf[0].deprecated = true; }))), ['schema.changed /json/properties/k !']);
  const one = mutated((d) => { props(d).c.enum = ['red']; props(d).tags.items.enum = ['x']; });
  t.same(diff(mutated((d) => { delete props(d).c.enum; props(d).c.const = 'red'; delete props(d).tags.items.enum; props(d).tags.items.const = 'x'; }, one), one), identical);
});

t.test('boolean schemas, $ref/$defs/allOf, a missing ui', async (t) => {
  const withBool = mutated((d) => { props(d).b = true; });
  t.same(diff(structuredClone(withBool), withBool), identical);
  t.same(summary(diff(mutated((d) => { props(d).b = false; }, withBool), withBool)), ['schema.changed /json/properties/b !', 'field.type_changed /json/properties/b/type !']);
  t.same(diff({ json: true }, { json: true }), identical);
  t.same(diff({ json: true }, { json: {} }), identical, 'true accepts what {} accepts');
  t.same(summary(diff({ json: false }, { json: true })), ['schema.changed /json !']);
  t.ok(diff(baseDoc(), { json: true }).changes.some((c) => c.kind === 'field.added'));
  const defs = mutated((d) => { d.json.$defs = { name: { type: 'string', maxLength: 5 } }; props(d).nick = { $ref: '#/$defs/name', title: 'Nick' }; });
  t.same(summary(diff(mutated((d) => { d.json.$defs.name.maxLength = 3; }, defs), defs)), ['schema.changed /json !']);
  t.same(summary(diff(mutated((d) => { props(d).nick.$ref = '#/$defs/other'; }, defs), defs)), ['schema.changed /json/properties/nick !']);
  t.same(summary(diff(mutated((d) => { props(d).a.allOf = [{ minLength: 2 }]; }))), ['schema.changed /json/properties/a !']);
  const bare: Doc = { json: baseDoc().json };
  t.same(diff(structuredClone(bare), bare), identical);
  const laidOut = diff(baseDoc(), bare);
  t.ok(laidOut.changes.length > 0 && laidOut.changes.every((c) => !c.breaking), 'a layout appearing hides nothing');
  t.ok(laidOut.changes.some((c) => c.kind === 'layout.shown'));
  t.ok(diff(bare).changes.some((c) => c.kind === 'layout.hidden' && c.breaking), 'a layout dropped hides the fields');
});

t.test('renderers with 200,000 changes: no stack overflow', async (t) => {
  const changes: Change[] = Array.from({ length: 200_000 }, (_, i): Change => ({ kind: 'field.added', path: `/json/properties/f${i}`, breaking: i % 2 === 0, message: `field \`f${i}\` added` }));
  const big: SchemaDiff = { identical: false, changes };
  t.ok(renderStylish(big).endsWith('✖ 200000 changes (100000 breaking)\n'));
  t.ok(renderMarkdown(big).endsWith('…and 199700 more changes (see the json output).\n'));
  t.same(JSON.parse(renderJson(big)).summary, { changes: 200_000, breaking: 100_000 });
});

/** `{v: {v: ... }}` nested `depth` times, built without recursion. */
function chain(depth: number, key: string, leaf: unknown = 0): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

t.test('hostile depth and size: SchemaDiffLimitError, never a RangeError of the stack', async (t) => {
  let properties: unknown = { type: 'string' };
  for (let i = 0; i < 20_000; i++) properties = { type: 'object', properties: { x: properties } };
  let allOf: unknown = { type: 'string' };
  for (let i = 0; i < 20_000; i++) allOf = { allOf: [allOf] };
  let arrays: unknown = [];
  for (let i = 0; i < 20_000; i++) arrays = [arrays];
  const hostile: Array<[string, unknown]> = [
    ['subschemas', { json: properties }],
    ['allOf', { json: allOf }],
    ['not', { json: chain(20_000, 'not', { type: 'string' }) }],
    ['a default value', { json: { type: 'object', properties: { a: { default: chain(20_000, 'v') } } } }],
    ['ui fields', { json: {}, ui: { fields: { a: chain(20_000, 'v') } } }],
    ['ui arrays', { json: {}, ui: { order: arrays } }],
  ];
  for (const [name, doc] of hostile) {
    t.throws(() => diff(doc, { json: {} }), SchemaDiffLimitError, `${name}, after`);
    t.throws(() => diff({ json: {} }, doc), { name: 'SchemaDiffLimitError', code: 'schema_diff_limit' }, `${name}, before`);
  }
  const fields = Object.fromEntries(Array.from({ length: MAX_UI_ENTRIES + 1 }, (_, i) => [`f${i}`, { type: 'TEXT' }]));
  t.throws(() => diff({ json: {}, ui: { fields } }, { json: {} }), { name: 'SchemaDiffLimitError', message: /UI has more than/ });
  const column = { s: { leftColumn: Array.from({ length: MAX_UI_ENTRIES + 1 }, (_, i) => ({ name: `f${i}`, type: 'field' })) } };
  t.throws(() => diff({ json: {}, ui: { sections: column } }, { json: {} }), SchemaDiffLimitError, 'placements count too');
});
