/**
 * `fieldops lint` through the real binary: our fixtures (fixtures/lint/) with every expected
 * finding at its line and column, every output format, exit codes, choice references checked
 * against a mirror, and the shared EarthRanger corpus (skipped, saying so, when absent).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { KnexMirrorStore } from '../../sync/mirror/knex-store.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { repoRoot } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';
import { sharedDir } from '../helpers/fixtures.js';
import { checkSarif, checkXml } from '../helpers/report-checks.js';

const fixtures = path.join(repoRoot, 'fixtures', 'lint');
const at = (name: string) => path.join(fixtures, name);

/** Every finding in fixtures/lint/, as `file line:column severity code pointer`. */
const EXPECTED = [
  'broken.v2.json 3:5 error schema_version_error /json/$schema',
  'broken.v2.json 6:55 error schema_validation_error /json/properties/count/minimum',
  'broken.v2.json 7:52 error schema_validation_error /json/properties/code/pattern',
  'broken.v2.json 9:27 error schema_validation_error /json/required/1',
  'broken.v2.json 14:59 error ui_reference_error /ui/fields/count/parent',
  'broken.v2.json 22:61 warning ui_definition_error /ui/sections/main/leftColumn/1',
  'broken.v2.json 29:3 error schema_structure_error /readonly',
  'not-json.json 4:48 error schema_parsing_error ',
  'patrol-type-export.json 12:9 warning schema_validation_error /schema/json/properties/damage',
];

const lines = (report: any) =>
  report.files.flatMap((f: any) => f.findings.map((x: any) => `${path.basename(f.path)} ${x.line}:${x.column} ${x.severity} ${x.code} ${x.pointer}`));

t.test('fixtures/lint: every finding, in every format', async (t) => {
  const cli = cliEnv(t);
  const run = (args: string[], env: Record<string, string> = {}) => cli.run(['lint', fixtures, '--no-mirror', ...args], { env });

  await t.test('json: the exact findings; v1 and unrecognised files found through a directory are skipped', async (t) => {
    const result = await run(['--format', 'json']);
    t.equal(result.code, 1, 'errors: exit 1');
    const report = JSON.parse(result.stdout);
    t.same(lines(report), EXPECTED);
    t.same(report.summary, { files: 5, skipped: 2, documents: 5, errors: 7, warnings: 2 });
    const kinds = Object.fromEntries(report.files.map((f: any) => [path.basename(f.path), [f.kind, f.documents, f.skipped]]));
    t.same(kinds['event-types-list.json'], ['types', ['/0/schema', '/1/schema'], null], 'a list of type exports: each schema');
    t.same(kinds['patrol-type-export.json'], ['type', ['/schema'], null]);
    t.match(kinds['legacy.v1.json'], ['v1', [], /fieldops migrate/]);
    t.match(kinds['settings.json'], ['unrecognised', [], /no \{json, ui\} document/]);
    t.equal(result.stderr, '', 'nothing on stderr');
  });

  await t.test('stylish: grouped by file, with hints and a summary', async (t) => {
    const result = await run([]);
    t.equal(result.code, 1);
    t.match(result.stdout, /fixtures\/lint\/broken\.v2\.json\n  3:5 +error +`\$schema` is "http:\/\/json-schema\.org\/draft-07\/schema#", not the JSON Schema 2020-12 meta-schema URI  schema_version_error\n +hint: set "\$schema"/);
    t.match(result.stdout, /\n✖ 9 problems \(7 errors, 2 warnings\) in 5 documents in 5 files \(2 skipped\)\n$/);
    t.notMatch(result.stdout, /\u001b\[/, 'no colour codes in a pipe');
  });

  await t.test('sarif: valid against the SARIF 2.1.0 subset, same findings', async (t) => {
    const result = await run(['--format', 'sarif']);
    t.equal(result.code, 1);
    const log = JSON.parse(result.stdout);
    t.same(checkSarif(log), [], 'structurally valid SARIF 2.1.0');
    const [run0] = log.runs;
    t.equal(run0.tool.driver.name, 'fieldops');
    t.same(
      run0.results.map((r: any) => `${path.basename(r.locations[0].physicalLocation.artifactLocation.uri)} ${r.locations[0].physicalLocation.region.startLine}:${r.locations[0].physicalLocation.region.startColumn} ${r.level} ${r.ruleId} ${r.locations[0].logicalLocations[0].fullyQualifiedName === '/' ? '' : r.locations[0].logicalLocations[0].fullyQualifiedName}`),
      EXPECTED,
    );
    t.same(run0.tool.driver.rules.map((r: any) => r.id), ['schema_parsing_error', 'schema_structure_error', 'schema_validation_error', 'schema_version_error', 'ui_definition_error', 'ui_reference_error']);
    t.ok(run0.results.every((r: any) => /^[0-9a-f]{32}$/.test(r.partialFingerprints['fieldopsPointer/v1'])), 'stable fingerprints');
    t.same(checkSarif({ ...log, runs: [{ ...run0, results: [{ ...run0.results[0], level: 'fatal' }] }] }).length > 0, true, 'and the check can fail');
  });

  await t.test('junit: well-formed XML, a failing case per document with errors', async (t) => {
    const result = await run(['--format', 'junit']);
    t.equal(result.code, 1);
    t.same(checkXml(result.stdout), [], 'well formed');
    t.same(checkXml('<a><b></a>').length > 0, true, 'and the check can fail');
    t.match(result.stdout, /<testsuites name="fieldops lint" tests="6" failures="2" errors="0">/);
    t.equal((result.stdout.match(/<testcase /g) ?? []).length, 6);
    t.equal((result.stdout.match(/<failure /g) ?? []).length, 2);
    t.match(result.stdout, /<failure message="6 errors: [^"]*" type="schema_version_error">[^<]*broken\.v2\.json:3:5 error schema_version_error/);
  });

  await t.test('github: one annotation per finding, automatic under GITHUB_ACTIONS', async (t) => {
    const explicit = await run(['--format', 'github']);
    const automatic = await run([], { GITHUB_ACTIONS: 'true' });
    t.equal(automatic.stdout, explicit.stdout, 'GITHUB_ACTIONS=true picks the github format');
    const annotations = explicit.stdout.split('\n').filter((l) => l.startsWith('::'));
    t.equal(annotations.length, EXPECTED.length);
    t.match(annotations[0], /^::error file=.*fixtures\/lint\/broken\.v2\.json,line=3,col=5,title=fieldops schema_version_error::`\$schema` is .*%0Ahint: set /);
    t.match(annotations[5], /^::warning file=.*,line=22,col=61,title=fieldops ui_definition_error::/);
    t.ok(annotations.every((a) => !a.slice(2).includes('\n')), 'newlines escaped');
  });

  await t.test('--output writes the report to a file; the summary goes to stderr', async (t) => {
    const out = path.join(cli.dir, 'report.sarif');
    const result = await run(['--format', 'sarif', '--output', out]);
    t.equal(result.code, 1);
    t.equal(result.stdout, '');
    t.match(result.stderr, /7 errors, 2 warnings in 5 documents; report written to .*report\.sarif/);
    t.same(checkSarif(JSON.parse(fs.readFileSync(out, 'utf8'))), []);
  });

  await t.test('warnings pass unless --max-warnings says otherwise; explicit files are always linted', async (t) => {
    const files = [at('valid.v2.json'), at('patrol-type-export.json')];
    t.equal((await cli.run(['lint', ...files, '--no-mirror'])).code, 0, 'warnings only: exit 0');
    const strict = await cli.run(['lint', ...files, '--no-mirror', '--max-warnings', '0']);
    t.equal(strict.code, 1);
    t.match(strict.stderr, /1 warnings exceed --max-warnings 0/);
    const explicit = await cli.json(['lint', at('legacy.v1.json'), at('settings.json'), '--no-mirror']);
    t.equal(explicit.code, 1, 'named files are linted whatever they hold');
    t.same(lines(explicit.body).map((l: string) => l.split(' ').slice(0, 4).join(' ')), [
      'legacy.v1.json 2:13 error schema_version_error',
      'settings.json 1:1 error schema_structure_error',
      'settings.json 1:1 error schema_structure_error',
      'settings.json 1:3 error schema_structure_error',
      'settings.json 1:24 error schema_structure_error',
    ]);
    t.match(explicit.body.files[0].findings[0].hints[0], /fieldops migrate/);
  });

  await t.test('usage errors exit 2', async (t) => {
    const none = await cli.run(['lint', path.join(fixtures, 'nothing-*.json')]);
    t.equal(none.code, 2);
    t.match(none.stderr, /no files match .*nothing-\*\.json/);
    const glob = await cli.run(['lint', path.join(fixtures, 'valid.*.json'), '--no-mirror']);
    t.equal(glob.code, 0, 'a glob is expanded by fieldops');
    t.match(glob.stdout, /no problems: 1 document in 1 file/);
    t.equal((await cli.run(['lint', fixtures, '--format', 'xml'])).code, 2);
    t.equal((await cli.run(['lint'])).code, 2);
  });
});

t.test('choice references are checked against the mirrored choices', async (t) => {
  const cli = cliEnv(t);
  const mirror = path.join(cli.dir, 'mirror.sqlite3');
  const store = new KnexMirrorStore((await openMirrorDatabase(mirror, { create: true }))!);
  await store.apply({
    meta: { server: 'https://field.example', username: 'ana' },
    syncedAt: '2026-11-20T10:00:00.000Z',
    reset: false,
    updates: [{ resource: 'choices', kind: 'items', validators: { etag: '"c"', lastModified: null, pages: [] }, items: [{ id: 'c1', field: 'species', value: 'lion', display: 'Lion', is_active: true }] }],
  });
  await store.close();
  const env = { FIELDOPS_MIRROR: mirror };
  const result = await cli.json(['lint', at('valid.v2.json'), at('event-types-list.json')], { env });
  t.equal(result.code, 1);
  t.same(lines(result.body), ['event-types-list.json 12:68 error unresolvable_reference /0/schema/json/properties/horn/anyOf/0/$ref']);
  t.match(result.body.files[0].findings[0].message, /the choice list "horn_condition" does not exist on https:\/\/field\.example/);
  t.match(result.body.choice_source, /^https:\/\/field\.example \(mirror of 2026-11-20T10:00:00\.000Z\)$/);
  const skipped = await cli.json(['lint', at('event-types-list.json'), '--no-mirror'], { env });
  t.equal(skipped.code, 0, '--no-mirror skips the check');
  t.equal(skipped.body.choice_source, null);
});

const shared = sharedDir();
t.test('the shared EarthRanger corpus', { skip: shared ? false : 'shared corpus not found (set FIELDOPS_SHARED_DIR); skipping' }, async (t) => {
  const corpus = path.join(shared!, 'corpus', 'earthranger');
  const cli = cliEnv(t);
  const json = await cli.json(['lint', corpus, '--no-mirror']);
  t.equal(json.code, 0, 'no errors: exit 0');
  // The two patrol type schemas of the web client's fixture module carry already-rendered
  // choice lists (warnings); the mock event types and the CLI's event type export are valid;
  // the Django choices fixture is no schema and is skipped.
  t.same(lines(json.body), [
    'PADAS__das-web-react__src____test-helpers__fixtures__patrol-schemas.js.v2.json 6:9 warning schema_validation_error /patrolTypeFieldsSchema/json/properties/driver_name',
    'PADAS__das-web-react__src____test-helpers__fixtures__patrol-schemas.js.v2.json 100:9 warning schema_validation_error /defaultPatrolSegmentTypeSchema/json/properties/station',
  ]);
  t.same(json.body.summary, { files: 4, skipped: 1, documents: 5, errors: 0, warnings: 2 });
  const kinds = json.body.files.map((f: any) => [path.basename(f.path).replace(/^PADAS__/, '').slice(0, 24), f.kind]);
  t.same(kinds.map((k: string[]) => k[1]), ['document', 'document', 'bundle', 'type', 'unrecognised']);
  t.equal((await cli.run(['lint', corpus, '--no-mirror', '--max-warnings', '0'])).code, 1);

  for (const format of ['stylish', 'sarif', 'junit', 'github'] as const) {
    const result = await cli.run(['lint', corpus, '--no-mirror', '--format', format]);
    t.equal(result.code, 0, `${format}: exit 0`);
    if (format === 'sarif') {
      const log = JSON.parse(result.stdout);
      t.same(checkSarif(log), [], 'SARIF valid');
      t.same(log.runs[0].results.map((r: any) => [r.level, r.locations[0].physicalLocation.region.startLine]), [['warning', 6], ['warning', 100]]);
    }
    if (format === 'junit') {
      t.same(checkXml(result.stdout), []);
      t.match(result.stdout, /tests="5" failures="0"/);
    }
    if (format === 'github') t.equal(result.stdout.split('\n').filter((l) => l.startsWith('::warning ')).length, 2);
    if (format === 'stylish') t.match(result.stdout, /✖ 2 problems \(0 errors, 2 warnings\) in 5 documents in 4 files \(1 skipped\)/);
  }

  const v1 = fs.readdirSync(corpus).filter((f) => f.endsWith('.v1.txt')).map((f) => path.join(corpus, f));
  const named = await cli.json(['lint', ...v1, '--no-mirror']);
  t.equal(named.code, 1);
  t.same(named.body.files.map((f: any) => f.kind), v1.map(() => 'v1'), 'every v1 document is recognised and sent to migrate');
});
