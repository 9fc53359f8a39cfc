/**
 * Expected outcomes for every real EarthRanger document of the shared corpus. Each v2 file is
 * checked as it is, and — when it wraps documents (a JS fixture module exporting two schemas, an
 * event type resource with a `schema` member) — each wrapped document at its pointer. Each v1
 * file is parsed, rendered (its event_details schema compiles) and migrated. When a real document fails or warns, the comment says
 * whether the rule or the document is at fault.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  createEventDetailsValidatorCache, getAtPointer, groupChoices, migrateV1ToV2, normaliseDocument, parseV1, preRender, renderV1, toChoiceRecords,
  v1DetailsSchema, validateDocument,
} from '../../schema/index.js';
import { codes, sharedCorpus } from './support.js';

const corpus = sharedCorpus('corpus', 'earthranger');

interface V2Expectation {
  /** Where the document is inside the file. */
  pointer: string;
  errors: string[];
  warnings: string[];
}

const V2_OUTCOMES: Record<string, V2Expectation[]> = {
  // The web client's mock event types: valid. They use `NUMERIC` (no inputType), the builder's
  // numeric UI type, which the specification lists as `NUMBER`: both are accepted (the rule
  // follows real documents).
  'eventtypes__fixtures.js__animal_control_v2.v2.json': [{ pointer: '', errors: [], warnings: [] }],
  'eventtypes__fixtures.js__light_v2.v2.json': [{ pointer: '', errors: [], warnings: [] }],
  // A JS module exporting two patrol type schemas: the file itself is no schema document (the
  // rule is right: its root keys are the export names). The two documents are valid; both
  // carry already-rendered choices (`anyOf` of `enum` + `x-enumExtra`), which we accept with a
  // warning because such lists no longer follow the choices they came from.
  'patrol-schemas.js.v2.json': [
    {
      pointer: '',
      errors: [
        'schema_structure_error /patrolTypeFieldsSchema', 'schema_structure_error /defaultPatrolSegmentTypeSchema',
        'schema_structure_error /json', 'schema_structure_error /ui',
      ],
      warnings: [],
    },
    { pointer: '/patrolTypeFieldsSchema', errors: [], warnings: ['schema_validation_error /json/properties/driver_name'] },
    { pointer: '/defaultPatrolSegmentTypeSchema', errors: [], warnings: ['schema_validation_error /json/properties/station'] },
  ],
  // An event type resource as the CLI test pulls it: the resource is not a schema document, its
  // `schema` member (a collection type with no fields yet) is valid.
  'incident_collection.v2.json': [
    {
      pointer: '',
      errors: ['id', 'value', 'display', 'category', 'is_active', 'is_collection', 'icon', 'schema', 'json', 'ui'].map((k) => `schema_structure_error /${k}`),
      warnings: [],
    },
    { pointer: '/schema', errors: [], warnings: [] },
  ],
};

interface V1Expectation {
  errors: string[];
  warnings: string[];
  newChoices: number;
  renders: boolean;
}

const at = (code: string, pointer: string, line: number, column: number): string => `${code} ${pointer} @${line}:${column}`;

const V1_OUTCOMES: Record<string, V1Expectation> = {
  // Mobile mock: `definition` sits inside `schema` (the document is wrong; we use it with a
  // warning), names a property that does not exist (skipped, as er-server's check would reject
  // it), and its checkbox field carries an inline titleMap: a new list of 3 choices.
  'mobile_checkbox_schema.v1.txt': {
    errors: [],
    warnings: [
      at('schema_structure_error', '/schema/definition', 34, 17),
      at('migration_warning', '/schema/properties/blackRhinos/title', 31, 14),
      at('migration_warning', '/schema/definition/4', 51, 4),
      at('migration_warning', '/schema/definition/6', 73, 4),
    ],
    newChoices: 3,
    renders: true,
  },
  // Mobile mock whose tags were split by a pretty-printer (`{ { name } }`): er-server would not
  // render it; we accept the tags with warnings. Three required fields are missing from the
  // definition, so v2 forms hide them as v1 forms did (warnings).
  'test_hugo.v1.txt': {
    errors: [],
    warnings: [
      ...['species', 'density', 'phenologicalstate'].flatMap((f, i) => [
        at('v1_template_error', `/schema/properties/invasivespeciesrep_${f}/enum`, 20 + 14 * i, 13),
        at('v1_template_error', `/schema/properties/invasivespeciesrep_${f}/enumNames`, 25 + 14 * i, 18),
      ]),
      'ui_definition_error /ui/fields/type_accident', 'ui_definition_error /ui/fields/number_people_involved', 'ui_definition_error /ui/fields/animals_involved',
    ],
    newChoices: 0,
    renders: true,
  },
  'carcass_rep.v1.txt': { errors: [], warnings: [], newChoices: 0, renders: true },
  'hwc_rep.v1.txt': { errors: [], warnings: [], newChoices: 0, renders: true },
  // `query___blackRhinos` is a dynamic list (subjects) with no v2 equivalent: referenced by name,
  // with a warning; it renders empty because the fixture holds no choices of that name.
  'rhino_sighting_rep.v1.txt': {
    errors: [],
    warnings: [at('migration_warning', '/schema/properties/rhinosightingrep_Rhino/enum', 13, 25)],
    newChoices: 0,
    renders: true,
  },
  // er-server's own example of a bad schema: `{{table__TypeOfShots__values}}` has two
  // underscores, so it is not a tag (er-server raises "Invalid schema tag"). The document is
  // wrong; migration reports exactly that and must not be applied.
  'BAD_SCHEMA.v1.txt': {
    errors: [at('v1_template_error', '/schema/properties/shotrepTypeOfShots/enum', 35, 25)],
    warnings: [
      at('migration_warning', '/schema/properties/shotrepTimeOfShot', 12, 34),
      at('migration_warning', '/schema/properties/shotrepTypeOfShots/enumNames', 36, 30),
    ],
    newChoices: 0,
    renders: false,
  },
  // Fieldsets, checkbox titleMaps and a collection. `behavior` has no choices in the fixture
  // (warning); five properties are absent from the definition and stay hidden.
  'ET_SCHEMA.v1.txt': {
    errors: [],
    warnings: [
      at('migration_warning', '/schema/properties/livestock_killed_array/items/properties/Animal Name/enum', 28, 25),
      ...['livestock_killed_array', 'HopActivity', 'HopStage', 'HopColour', 'eLocust-key'].map((f) => `ui_definition_error /ui/fields/${f}`),
    ],
    newChoices: 0,
    renders: true,
  },
};

const files = corpus.skip ? [] : readdirSync(corpus.dir);
const matching = (suffix: string): string | undefined => files.find((f) => f.endsWith(suffix));

t.test('every v2 corpus file has a recorded outcome', { skip: corpus.skip }, async (t) => {
  const v2 = files.filter((f) => f.endsWith('.v2.json'));
  t.same(v2.map((f) => Object.keys(V2_OUTCOMES).filter((s) => f.endsWith(s)).length), v2.map(() => 1), 'one table entry per file');
  for (const [suffix, expectations] of Object.entries(V2_OUTCOMES)) {
    const file = matching(suffix);
    if (!t.ok(file, suffix)) continue;
    const content = JSON.parse(readFileSync(path.join(corpus.dir, file as string), 'utf8'));
    for (const expected of expectations) {
      const doc = getAtPointer(content, expected.pointer);
      const result = validateDocument(doc);
      const label = `${suffix}#${expected.pointer}`;
      t.equal(result.valid, expected.errors.length === 0, `${label} valid`);
      t.same(codes(result.issues), expected.errors, `${label} errors`);
      t.same(codes(result.issues.filter((i) => i.severity === 'warning'), 'all'), expected.warnings, `${label} warnings`);
      if (result.valid) {
        t.equal(validateDocument(normaliseDocument(doc)).valid, true, `${label} stays valid once normalised`);
        const rendered = await preRender(doc, () => null);
        t.same(rendered.issues, [], `${label} pre-renders (it has no choice references)`);
      }
    }
  }
});

t.test('every v1 corpus file parses, renders and migrates as recorded', { skip: corpus.skip }, async (t) => {
  const choicesFile = matching('__choices.json');
  const lists = groupChoices(toChoiceRecords(JSON.parse(readFileSync(path.join(corpus.dir, choicesFile as string), 'utf8'))));
  t.ok(lists.size >= 40, `${lists.size} choice lists read from the Django fixture`);
  const v1 = files.filter((f) => f.endsWith('.v1.txt'));
  t.same(v1.map((f) => Object.keys(V1_OUTCOMES).filter((s) => f.endsWith(s)).length), v1.map(() => 1), 'one table entry per file');
  const line = (i: { code: string; pointer: string; location?: { line: number; column: number } }): string =>
    i.location && !i.pointer.startsWith('/ui') && !i.pointer.startsWith('/json') ? at(i.code, i.pointer, i.location.line, i.location.column) : `${i.code} ${i.pointer}`;
  for (const [suffix, expected] of Object.entries(V1_OUTCOMES)) {
    const file = matching(suffix);
    if (!t.ok(file, suffix)) continue;
    const text = readFileSync(path.join(corpus.dir, file as string), 'utf8');
    const parsed = parseV1(text);
    t.ok(parsed.schema, `${suffix} parses`);
    const rendered = renderV1(text, lists).document;
    t.equal(rendered !== null, expected.renders, `${suffix} renders`);
    // What validates event_details of such a type compiles (mobile_checkbox_schema uses the v1
    // pseudo-type `checkboxes`, no JSON Schema type: v1DetailsSchema makes it a list of strings).
    if (rendered) t.doesNotThrow(() => createEventDetailsValidatorCache().build(v1DetailsSchema(rendered)), `${suffix} validates event_details`);
    const result = migrateV1ToV2(text, { baseUrl: 'https://site.example/api', choices: lists });
    t.same(result.errors.map(line), expected.errors, `${suffix} errors`);
    t.same(result.warnings.map(line), expected.warnings, `${suffix} warnings`);
    t.equal(result.newChoices.length, expected.newChoices, `${suffix} new choices`);
    t.equal(validateDocument(result.document).valid, true, `${suffix} migrated document validates`);
    t.equal(JSON.stringify(migrateV1ToV2(text, { baseUrl: 'https://site.example/api', choices: lists })), JSON.stringify(result), `${suffix} deterministic`);
  }
});
