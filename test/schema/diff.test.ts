/**
 * The semantic schema diff (issue 28, part 1): each change kind with a case that triggers it and
 * a similar one that must not; identity under key order and normalisation; the rename
 * heuristic; choices through a lookup; the renderers; the project's fixtures and the shared
 * EarthRanger corpus (identical to themselves, one removed field = one `field.removed`); a
 * generated 2,000-field schema; the input limits.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { DRAFT_2020_12, groupChoices, joinPointer, toChoiceRecords } from '../../schema/index.js';
import {
  choiceLookupFrom, diffSchemaDocuments, MAX_DIFF_FIELDS, renderDiff, renderJson, renderMarkdown, renderStylish, resolveChoiceLookup,
  SchemaDiffLimitError, type SchemaDiff,
} from '../../schema/diff/index.js';
import { readFixtureJson, repoRoot, sharedCorpus } from './support.js';

type Doc = { json: Record<string, any>; ui: Record<string, any> };
const ref = (list: string): string => `https://fieldops.example/api/v2.0/schemas/choices.json?field=${list}`;
const fixtureChoices = choiceLookupFrom(groupChoices(toChoiceRecords(readFixtureJson('choices.json'))));

function baseDoc(): Doc {
  return {
    json: {
      $schema: DRAFT_2020_12, type: 'object', additionalProperties: false, required: ['a'],
      properties: {
        a: { type: 'string', title: 'Reporter', minLength: 1, maxLength: 10 },
        n: { type: 'integer', title: 'Count', minimum: 0, maximum: 100, multipleOf: 0.5 },
        c: { type: 'string', title: 'Colour', enum: ['red', 'blue'] },
        k: { type: 'string', title: 'Kind', anyOf: [{ const: 'big', title: 'Big' }, { const: 'small', title: 'Small' }] },
        r: { type: 'string', title: 'Species', anyOf: [{ $ref: ref('fixture_species') }] },
        tags: { type: 'array', title: 'Behaviours', minItems: 1, items: { type: 'string', maxLength: 20, anyOf: [{ $ref: ref('fixture_behaviour') }] } },
        d: { type: 'string', title: 'Seen on', format: 'date', description: 'the day' },
        p: { type: 'string', title: 'Code', pattern: '^[A-Z]+$' },
        animals: {
          type: 'array', title: 'Animals',
          items: { type: 'object', required: ['tag'], properties: { tag: { type: 'string', title: 'Ear tag' }, age: { type: 'integer', title: 'Age' } } },
        },
      },
    },
    ui: {
      fields: {
        a: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 's1' }, n: { type: 'NUMBER', inputType: 'NUMBER', parent: 's1' },
        c: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', parent: 's1' }, k: { type: 'CHOICE_LIST', inputType: 'RADIO', parent: 's1' },
        r: { type: 'CHOICE_LIST', inputType: 'DROPDOWN', parent: 's1' }, tags: { type: 'CHOICE_LIST', inputType: 'CHECKBOX', parent: 's1' },
        d: { type: 'DATE_TIME', inputType: 'DATE', parent: 's2' }, p: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 's2' },
        animals: { type: 'COLLECTION', parent: 's2', leftColumn: ['tag'], rightColumn: ['age'] },
      },
      headers: { h1: { label: 'Details', section: 's1', size: 'MEDIUM' } },
      order: ['s1', 's2'],
      sections: {
        s1: { label: 'Main', columns: 2, isActive: true, leftColumn: [{ name: 'h1', type: 'header' }, ...entries('a', 'n', 'c')], rightColumn: entries('k', 'r', 'tags') },
        s2: { label: 'When', columns: 1, isActive: true, leftColumn: entries('d', 'p', 'animals'), rightColumn: [] },
      },
    },
  };
}
function entries(...names: string[]): Array<{ name: string; type: string }> {
  return names.map((name) => ({ name, type: 'field' }));
}
function mutated(change: (doc: Doc) => void, from: Doc = baseDoc()): Doc {
  const doc = structuredClone(from);
  change(doc);
  return doc;
}
const diff = (after: Doc, before: Doc = baseDoc()): SchemaDiff => diffSchemaDocuments(before, after, { choices: fixtureChoices });
const summary = (d: SchemaDiff): string[] => d.changes.map((c) => `${c.kind} ${c.path}${c.breaking ? ' !' : ''}`);
const props = (doc: Doc): Record<string, any> => doc.json.properties;

/** A copy with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverseKeys(v)]));
  return value;
}

t.test('identical documents: same content, other key order, additionalProperties vs its normalised form', async (t) => {
  t.same(diff(baseDoc()), { identical: true, changes: [] });
  t.same(diff(reverseKeys(baseDoc()) as Doc), { identical: true, changes: [] });
  const normalised = mutated((d) => { delete d.json.additionalProperties; d.json.unevaluatedProperties = false; });
  t.same(diff(normalised), { identical: true, changes: [] }, 'additionalProperties:false is stored as unevaluatedProperties:false');
  const twoRequired = mutated((d) => { d.json.required = ['a', 'n']; });
  t.same(diff(mutated((d) => { d.json.required = ['n', 'a']; }), twoRequired), { identical: true, changes: [] }, 'required order is not a change');
  t.same(diff(mutated((d) => { props(d).c.enum = ['blue', 'red']; })), { identical: true, changes: [] }, 'choice order is not a change');
  t.same(diff(mutated((d) => { props(d).a.$comment = 'a note for editors'; })), { identical: true, changes: [] }, '$comment is not part of the form');
});

t.test('field.added / field.removed, and the nested fields of collections', async (t) => {
  t.same(summary(diff(mutated((d) => { props(d).z = { type: 'string', title: 'New' }; }))), ['field.added /json/properties/z']);
  t.same(summary(diff(mutated((d) => { props(d).z = { type: 'string', title: 'New' }; d.json.required.push('z'); }))), ['field.added /json/properties/z !'],
    'a new required field is breaking: earlier events lack it');
  t.same(summary(diff(mutated((d) => { delete props(d).n; }))), ['field.removed /json/properties/n !'], 'one change: its layout entries are not reported again');
  const nested = diff(mutated((d) => { delete props(d).animals.items.properties.age; }));
  t.same(summary(nested), ['field.removed /json/properties/animals/items/properties/age !']);
  t.equal(nested.changes[0]!.field, 'animals.age');
  t.same(summary(diff(mutated((d) => { props(d).a.title = 'Observer'; }))).filter((s) => s.startsWith('field.')), [], 'a changed title is no addition or removal');
});

t.test('field.renamed: same title, or same kind at the same layout position; otherwise removed + added', async (t) => {
  const byTitle = diff(mutated((d) => {
    props(d).reporter = props(d).a; delete props(d).a; d.json.required = ['reporter'];
    d.ui.fields.reporter = d.ui.fields.a; delete d.ui.fields.a;
    d.ui.sections.s1.leftColumn[1].name = 'reporter';
  }));
  t.same(summary(byTitle), ['field.renamed /json/properties/reporter !']);
  t.match(byTitle.changes[0], { before: 'a', after: 'reporter', likely: true, fromPath: '/json/properties/a', message: /same title "Reporter"/ });
  const byPosition = diff(mutated((d) => {
    props(d).total = { ...props(d).n }; delete props(d).total.title; delete props(d).n;
    d.ui.sections.s1.leftColumn[2].name = 'total';
  }));
  t.same(summary(byPosition), ['field.renamed /json/properties/total !', 'title.changed /json/properties/total/title']);
  t.match(byPosition.changes[0]!.message, /same kind \(numeric\) at the same position/);
  const retitled = diff(mutated((d) => {
    props(d).total = { ...props(d).n, title: 'Total' }; delete props(d).n;
    d.ui.sections.s1.leftColumn[2].name = 'total';
  }));
  t.same(summary(retitled), ['field.removed /json/properties/n !', 'field.added /json/properties/total'], 'two different titles veto a rename by position');
  const notRename = diff(mutated((d) => {
    props(d).weight = { type: 'number', title: 'Weight' }; delete props(d).p;
    d.ui.sections.s2.leftColumn.splice(1, 1); d.ui.sections.s1.rightColumn.push({ name: 'weight', type: 'field' });
  }));
  t.same(summary(notRename), ['field.removed /json/properties/p !', 'field.added /json/properties/weight']);
  const renamedChild = diff(mutated((d) => {
    const items = props(d).animals.items;
    items.properties.tag_id = items.properties.tag; delete items.properties.tag; items.required = ['tag_id'];
  }));
  t.same(summary(renamedChild), ['field.renamed /json/properties/animals/items/properties/tag_id !']);
});

t.test('field.type_changed (widening is not breaking) and field.format_changed', async (t) => {
  t.same(summary(diff(mutated((d) => { props(d).n.type = 'string'; }))), ['field.type_changed /json/properties/n/type !']);
  t.same(summary(diff(mutated((d) => { props(d).n.type = 'number'; }))), ['field.type_changed /json/properties/n/type'], 'integer → number accepts every old value');
  t.same(summary(diff(mutated((d) => { props(d).a.enum = ['x', 'y']; }))), ['field.type_changed /json/properties/a/type !'], 'free text → a list of values');
  t.same(summary(diff(mutated((d) => { delete props(d).c.enum; }))), ['field.type_changed /json/properties/c/type'], 'a list of values → free text');
  t.same(summary(diff(mutated((d) => { props(d).d.format = 'date-time'; }))), ['field.format_changed /json/properties/d/format !']);
  t.same(summary(diff(mutated((d) => { delete props(d).d.format; }))), ['field.format_changed /json/properties/d/format'], 'dropping a format accepts more');
  t.same(summary(diff(mutated((d) => { props(d).d.title = 'Date'; }))), ['title.changed /json/properties/d/title'], 'no type or format change');
});

t.test('required.added / required.removed', async (t) => {
  t.same(summary(diff(mutated((d) => { d.json.required.push('n'); }))), ['required.added /json/required !']);
  t.same(summary(diff(mutated((d) => { d.json.required = []; }))), ['required.removed /json/required']);
  t.same(summary(diff(mutated((d) => { props(d).animals.items.required = []; }))), ['required.removed /json/properties/animals/items/required']);
  t.ok(diff(mutated((d) => { d.json.required = ['a', 'a']; })).identical, 'a duplicate is no change');
});

t.test('choices: inline lists, displays, references resolved through the lookup', async (t) => {
  t.same(summary(diff(mutated((d) => { props(d).c.enum = ['red', 'green']; }))), ['choice.removed /json/properties/c !', 'choice.added /json/properties/c']);
  t.same(diff(mutated((d) => { props(d).c.enum = ['red', 'green']; })).changes.map((c) => c.before ?? c.after), ['blue', 'green']);
  t.same(summary(diff(mutated((d) => { props(d).k.anyOf[1].title = 'Little'; }))), ['choice.display_changed /json/properties/k']);
  const swapped = diff(mutated((d) => { props(d).r.anyOf = [{ $ref: ref('fixture_age_class') }]; }));
  t.same(summary(swapped), [
    'choice_list.removed /json/properties/r', 'choice_list.added /json/properties/r',
    'choice.removed /json/properties/r !', 'choice.removed /json/properties/r !', 'choice.removed /json/properties/r !',
    'choice.added /json/properties/r', 'choice.added /json/properties/r', 'choice.added /json/properties/r',
  ]);
  t.same(swapped.changes.filter((c) => c.kind === 'choice.removed').map((c) => c.before), ['elephant', 'giraffe', 'zebra'], 'inactive choices are not offered');
  const unresolved = diffSchemaDocuments(baseDoc(), mutated((d) => { props(d).r.anyOf = [{ $ref: ref('fixture_age_class') }]; }));
  t.same(summary(unresolved), ['choice_list.removed /json/properties/r !', 'choice_list.added /json/properties/r'], 'without a lookup, only list names');
  const inlineToList = diff(mutated((d) => {
    props(d).r.anyOf = [{ const: 'elephant', title: 'Elephant' }, { const: 'giraffe', title: 'Giraffe' }, { const: 'zebra', title: 'Zebra' }];
  }), mutated(() => undefined));
  t.same(summary(inlineToList), ['choice_list.removed /json/properties/r'], 'the same values inline: only the source changed');
  t.same(summary(diff(mutated((d) => { props(d).tags.items.anyOf = [{ $ref: ref('fixture_behaviour') }, { const: 'running' }]; }))), ['choice.added /json/properties/tags/items']);
  t.same(summary(diff(mutated((d) => { props(d).n.enum = [1, 2]; }))), ['constraint.narrowed /json/properties/n !'], 'a number field limited to a list');
  t.ok(diff(mutated((d) => { props(d).r.anyOf = [{ $ref: '/api/v2.0/schemas/choices.json?field=fixture_species' }]; })).identical,
    'another base URL for the same list is no form change');
});

t.test('resolveChoiceLookup: an asynchronous resolver, asked once per list', async (t) => {
  const asked: string[] = [];
  const lookup = await resolveChoiceLookup([baseDoc(), baseDoc()], async ({ field }) => {
    asked.push(field);
    if (field === 'fixture_behaviour') throw new Error('offline');
    return [{ value: 'elephant', display: 'Elephant' }];
  });
  t.same(asked.sort(), ['fixture_behaviour', 'fixture_species']);
  t.same(lookup('fixture_species'), [{ value: 'elephant', display: 'Elephant' }]);
  t.equal(lookup('fixture_behaviour'), null, 'a failing resolver leaves the list unresolved');
});

t.test('constraints narrowed, widened, changed', async (t) => {
  const one = (change: (d: Doc) => void): string[] => summary(diff(mutated(change)));
  t.same(one((d) => { props(d).a.maxLength = 5; }), ['constraint.narrowed /json/properties/a/maxLength !']);
  t.same(one((d) => { props(d).a.maxLength = 50; }), ['constraint.widened /json/properties/a/maxLength']);
  t.same(one((d) => { props(d).a.minLength = 3; }), ['constraint.narrowed /json/properties/a/minLength !']);
  t.same(one((d) => { delete props(d).n.minimum; }), ['constraint.widened /json/properties/n/minimum']);
  t.same(one((d) => { props(d).n.exclusiveMaximum = 50; }), ['constraint.narrowed /json/properties/n/exclusiveMaximum !']);
  t.same(one((d) => { props(d).n.multipleOf = 0.25; }), ['constraint.widened /json/properties/n/multipleOf']);
  t.same(one((d) => { props(d).n.multipleOf = 2; }), ['constraint.narrowed /json/properties/n/multipleOf !']);
  t.same(one((d) => { props(d).p.pattern = '^[A-Z0-9]+$'; }), ['constraint.changed /json/properties/p/pattern !']);
  t.same(one((d) => { delete props(d).p.pattern; }), ['constraint.widened /json/properties/p/pattern']);
  t.same(one((d) => { props(d).tags.minItems = 2; props(d).tags.items.maxLength = 30; }),
    ['constraint.widened /json/properties/tags/items/maxLength', 'constraint.narrowed /json/properties/tags/minItems !']);
  t.same(one((d) => { props(d).tags.uniqueItems = true; }), ['constraint.narrowed /json/properties/tags/uniqueItems !']);
  t.ok(diff(mutated((d) => { props(d).n.maximum = 100.0; })).identical, 'the same bound');
});

t.test('title, annotations, other keywords', async (t) => {
  const titled = diff(mutated((d) => { props(d).a.title = 'Observer'; }));
  t.same(summary(titled), ['title.changed /json/properties/a/title']);
  t.match(titled.changes[0], { before: 'Reporter', after: 'Observer', field: 'a' });
  t.same(summary(diff(mutated((d) => { props(d).d.description = 'the date'; props(d).a.default = 'me'; }))),
    ['annotation.changed /json/properties/a/default', 'annotation.changed /json/properties/d/description']);
  t.same(summary(diff(mutated((d) => { d.json.title = 'Sighting'; }))), ['title.changed /json/title']);
  t.same(summary(diff(mutated((d) => { props(d).a.not = { const: 'nobody' }; }))), ['schema.changed /json/properties/a !']);
  t.same(summary(diff(mutated((d) => { d.json.minProperties = 1; }))), ['schema.changed /json !']);
});

t.test('layout: moved, hidden, shown, sections, headers, UI definitions', async (t) => {
  t.same(summary(diff(mutated((d) => { d.ui.sections.s1.leftColumn.splice(3, 1); d.ui.sections.s1.rightColumn.unshift({ name: 'c', type: 'field' }); }))),
    ['layout.moved /ui/sections/s1/rightColumn/0'], 'to the other column');
  const reordered = diff(mutated((d) => { const [, a, n, c] = d.ui.sections.s1.leftColumn; d.ui.sections.s1.leftColumn = [d.ui.sections.s1.leftColumn[0], n, a, c]; }));
  t.same(reordered.changes.map((c) => c.kind), ['layout.moved'], 'swapping two neighbours moves one field');
  t.same(summary(diff(mutated((d) => { props(d).z = { type: 'string', title: 'New' }; d.ui.sections.s1.leftColumn.splice(1, 0, { name: 'z', type: 'field' }); }))),
    ['field.added /json/properties/z'], 'a field inserted above others does not move them');
  t.same(summary(diff(mutated((d) => { d.ui.sections.s2.leftColumn.splice(1, 1); }))), ['layout.hidden /ui/sections/s2/leftColumn/1 !']);
  const unplaced = mutated((d) => { d.ui.sections.s2.leftColumn.splice(1, 1); });
  t.same(summary(diff(baseDoc(), unplaced)), ['layout.shown /ui/sections/s2/leftColumn/1']);
  t.same(summary(diff(mutated((d) => {
    d.ui.sections.s3 = { label: 'Where', columns: 1, isActive: true, leftColumn: entries('p'), rightColumn: [] };
    d.ui.sections.s2.leftColumn.splice(1, 1); d.ui.order.push('s3'); d.ui.fields.p.parent = 's3';
  }))), ['layout.section_added /ui/sections/s3', 'layout.moved /ui/sections/s3/leftColumn/0']);
  t.same(summary(diff(mutated((d) => { d.ui.order = ['s2', 's1']; }))), ['layout.section_moved /ui/order']);
  t.same(summary(diff(mutated((d) => { d.ui.sections.s2.isActive = false; d.ui.sections.s1.label = 'Sighting'; }))),
    ['layout.section_changed /ui/sections/s1/label', 'layout.section_changed /ui/sections/s2/isActive !']);
  t.same(summary(diff(mutated((d) => { d.ui.headers.h1.label = 'More'; }))), ['layout.header_changed /ui/headers/h1']);
  t.same(summary(diff(mutated((d) => { d.ui.fields.c.inputType = 'RADIO'; }))), ['ui.field_changed /ui/fields/c']);
  t.ok(diff(mutated((d) => { d.ui.fields.c.parent = 's2'; })).identical, 'parent alone: the placement did not change');
  t.same(summary(diff(mutated((d) => { delete props(d).p; d.ui.sections.s2.leftColumn.splice(1, 1); delete d.ui.fields.p; }))),
    ['field.removed /json/properties/p !'], 'a removed field is not also hidden');
});

t.test('changes are ordered deterministically, whatever the key order', async (t) => {
  const change = (d: Doc): void => { delete props(d).n; props(d).a.maxLength = 5; d.ui.order = ['s2', 's1']; props(d).z = { type: 'boolean' }; };
  const one = diff(mutated(change));
  const other = diffSchemaDocuments(reverseKeys(baseDoc()), reverseKeys(mutated(change)), { choices: fixtureChoices });
  t.same(other, one);
  t.same(summary(one), ['constraint.narrowed /json/properties/a/maxLength !', 'field.removed /json/properties/n !', 'field.added /json/properties/z', 'layout.section_moved /ui/order']);
});

t.test('renderers: stylish, json, markdown', async (t) => {
  const d = diff(mutated((doc) => { delete props(doc).n; props(doc).a.title = 'Observer | name'; }));
  t.equal(renderMarkdown(d, { title: 'sighting: revision 3 → revision 4' }), [
    '### Schema diff: sighting: revision 3 → revision 4', '',
    '**2 changes (1 breaking)**: breaking changes can invalidate or hide data already recorded.', '',
    '| | Change | Details | Path |', '|---|---|---|---|',
    '| | `title.changed` | title of `a` changed from "Reporter" to "Observer \\| name" | `/json/properties/a/title` |',
    '| ⚠️ | `field.removed` | field `n` removed | `/json/properties/n` |', '',
  ].join('\n'));
  const json = JSON.parse(renderJson(d));
  t.same(json.summary, { changes: 2, breaking: 1 });
  t.equal(json.identical, false);
  t.same(json.changes, JSON.parse(JSON.stringify(d.changes)));
  const stylish = renderStylish(d);
  t.match(stylish, /\/json\/properties\/n +breaking +field `n` removed +field\.removed/);
  t.match(stylish, /✖ 2 changes \(1 breaking\)\n$/);
  t.notMatch(stylish, /\u001b\[/, 'no colour unless asked');
  t.match(renderStylish(d, { color: true }), /\u001b\[31m/);
  const same = diff(baseDoc());
  t.match(renderDiff(same, 'stylish'), /✔ identical: no changes/);
  t.match(renderDiff(same, 'markdown'), /No changes/);
  t.same(JSON.parse(renderDiff(same, 'json')), { identical: true, summary: { changes: 0, breaking: 0 }, changes: [] });
  const renamed = diff(mutated((doc) => { props(doc).who = props(doc).a; delete props(doc).a; }));
  t.match(renderMarkdown(renamed), /\| ⚠️ \| `field.renamed` \(likely\) \|/);
  t.throws(() => renderDiff(same, 'xml' as never), TypeError);
});

t.test('project fixtures: identical to themselves; removing each field is one field.removed', async (t) => {
  const demo = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures', 'demo', 'event-types.json'), 'utf8')) as { event_types: Array<{ value: string; schema: Doc }> };
  const docs: Array<[string, Doc]> = [
    ['every-field-kind.v2.json', readFixtureJson('every-field-kind.v2.json') as Doc],
    ['lint/valid.v2.json', JSON.parse(readFileSync(path.join(repoRoot, 'fixtures', 'lint', 'valid.v2.json'), 'utf8')) as Doc],
    ...demo.event_types.map((e) => [`demo ${e.value}`, e.schema] as [string, Doc]),
  ];
  for (const [name, doc] of docs) checkDocument(t, name, doc);
});

function checkDocument(t: Test, name: string, doc: Doc): void {
  t.ok(diffSchemaDocuments(doc, structuredClone(doc), { choices: fixtureChoices }).identical, `${name}: identical to a copy`);
  t.ok(diffSchemaDocuments(doc, reverseKeys(doc), { choices: fixtureChoices }).identical, `${name}: identical with keys reordered`);
  const names = Object.keys(doc.json.properties ?? {});
  if (names.length === 0) {
    const added = mutated((d) => { d.json.properties = { extra: { type: 'string' } }; }, doc);
    t.same(summary(diffSchemaDocuments(doc, added)), ['field.added /json/properties/extra'], `${name}: no fields; one added`);
    return;
  }
  for (const field of names) {
    const without = mutated((d) => { delete d.json.properties[field]; }, doc);
    const result = diffSchemaDocuments(doc, without, { choices: fixtureChoices });
    t.same(summary(result), [`field.removed ${joinPointer('/json/properties', field)} !`], `${name}: without ${field}`);
  }
}

const corpus = sharedCorpus('corpus', 'earthranger');
t.test('the shared EarthRanger corpus (v2 documents)', { skip: corpus.skip }, async (t) => {
  let checked = 0;
  for (const file of readdirSync(corpus.dir).filter((f) => f.endsWith('.v2.json')).sort()) {
    const content = JSON.parse(readFileSync(path.join(corpus.dir, file), 'utf8')) as Record<string, any>;
    // a file is a document, or wraps documents (a JS module's exports, an event type's `schema`)
    const docs = [content, ...Object.values(content)].filter((v): v is Doc => !!v && typeof v === 'object' && !Array.isArray(v) && typeof v.json === 'object' && v.json !== null);
    for (const [i, doc] of docs.entries()) {
      checkDocument(t, `${file}#${i}`, doc);
      checked++;
    }
  }
  t.ok(checked >= 4, `${checked} documents checked`);
});

t.test('a generated schema of 2,000 fields against a mutated copy', async (t) => {
  const size = 2000;
  const big: Doc = { json: { $schema: DRAFT_2020_12, type: 'object', required: [], properties: {} }, ui: { fields: {}, order: [], sections: {}, headers: {} } };
  for (let i = 0; i < size; i++) {
    const section = `s${Math.floor(i / 100)}`;
    big.json.properties[`f${i}`] = i % 3 === 0 ? { type: 'integer', title: `Field ${i}`, minimum: 0 } : i % 3 === 1 ? { type: 'string', title: `Field ${i}`, maxLength: 50 } : { type: 'string', title: `Field ${i}`, enum: ['a', 'b', `v${i}`] };
    if (i % 10 === 0) big.json.required.push(`f${i}`);
    big.ui.fields[`f${i}`] = { type: 'TEXT', inputType: 'SHORT_TEXT', parent: section };
    if (!big.ui.sections[section]) {
      big.ui.sections[section] = { label: section, columns: 2, isActive: true, leftColumn: [], rightColumn: [] };
      big.ui.order.push(section);
    }
    big.ui.sections[section][i % 2 === 0 ? 'leftColumn' : 'rightColumn'].push({ name: `f${i}`, type: 'field' });
  }
  const changed = mutated((d) => {
    delete d.json.properties.f5;
    // a rename (same title), with its required entry, UI definition and placement
    d.json.properties.g10 = d.json.properties.f10; delete d.json.properties.f10;
    d.json.required[d.json.required.indexOf('f10')] = 'g10';
    d.ui.fields.g10 = d.ui.fields.f10; delete d.ui.fields.f10;
    d.ui.sections.s0.leftColumn[5].name = 'g10';
    d.json.properties.f21.type = 'number';
    d.json.properties.f31.maxLength = 10;
    d.json.properties.f32.enum = ['a', 'v32'];
    d.json.required.push('f33');
    d.json.properties.extra = { type: 'boolean', title: 'Extra' };
    const s1 = d.ui.sections.s1.leftColumn as Array<{ name: string }>;
    d.ui.sections.s19.rightColumn.push(s1.splice(0, 1)[0]); // f100 to the last section
  }, big);
  const started = process.hrtime.bigint();
  const result = diffSchemaDocuments(big, changed);
  t.comment(`2,000 fields: ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms (not asserted)`);
  t.same(summary(result), [
    'field.added /json/properties/extra',
    'field.type_changed /json/properties/f21/type',
    'constraint.narrowed /json/properties/f31/maxLength !',
    'choice.removed /json/properties/f32 !',
    'field.removed /json/properties/f5 !',
    'field.renamed /json/properties/g10 !',
    'required.added /json/required !',
    'layout.moved /ui/sections/s19/rightColumn/50',
  ]);
  t.match(result.changes.find((c) => c.kind === 'choice.removed'), { before: 'b', field: 'f32' });
  t.ok(diffSchemaDocuments(big, reverseKeys(big) as Doc).identical);
});

t.test('limits: too deep, too many fields', async (t) => {
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
  const deepDoc = { json: { type: 'object', properties: { x: deep } }, ui: {} };
  t.throws(() => diffSchemaDocuments(deepDoc, deepDoc), SchemaDiffLimitError);
  const deepValue: Record<string, unknown> = { default: 0 };
  let cursor = deepValue;
  for (let i = 0; i < 100; i++) { const next = { v: 0 }; cursor.default = next; cursor = next as never; }
  t.throws(() => diffSchemaDocuments({ json: { properties: { a: deepValue } } }, { json: { properties: { a: {} } } }), { code: 'schema_diff_limit' });
  const many = { json: { type: 'object', properties: Object.fromEntries(Array.from({ length: MAX_DIFF_FIELDS + 1 }, (_, i) => [`f${i}`, { type: 'string' }])) } };
  t.throws(() => diffSchemaDocuments(many, { json: {} }), { name: 'SchemaDiffLimitError', message: /more than 20000 fields/ });
});

