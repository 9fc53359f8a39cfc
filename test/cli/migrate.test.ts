/**
 * `fieldops migrate`: v1 files offline (the shared corpus when present, our fixtures always),
 * and `--remote` through the server's migrate endpoint, dry run then apply.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { repoRoot } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';
import { fixtureText, sharedDir } from '../helpers/fixtures.js';
import { startTestServer } from '../helpers/server.js';

const schemas = path.join(repoRoot, 'fixtures', 'schemas');

t.test('offline: our v1 fixtures', async (t) => {
  const cli = cliEnv(t);
  const out = path.join(cli.dir, 'out');
  const result = await cli.json(['migrate', path.join(schemas, 'fence-patrol.v1.txt'), path.join(schemas, 'broken-tags.v1.txt'), '--out', out, '--choices', path.join(schemas, 'choices.json')]);
  t.equal(result.code, 1, 'a file with errors: exit 1');
  t.same(result.body.files.map((f: any) => [path.basename(f.input), f.output, f.status]), [
    ['fence-patrol.v1.txt', 'fence-patrol.v2.json', 'migrated with warnings'],
    ['broken-tags.v1.txt', null, 'failed'],
  ]);
  t.same(result.body.files[1].errors.map((e: any) => [e.code, e.line, e.column]), [['v1_template_error', 15, 22], ['v1_template_error', 17, 60]], 'errors with their place in the v1 text');
  t.same(fs.readdirSync(out).sort(), ['choices.new.json', 'fence-patrol.v2.json', 'migration-report.json'], 'the failed file is not written');
  const newChoices = JSON.parse(fs.readFileSync(path.join(out, 'choices.new.json'), 'utf8'));
  t.same(newChoices.map((c: any) => `${c.field}/${c.value}`), ['fencerep_urgency/low', 'fencerep_urgency/medium', 'fencerep_urgency/high_now']);
  t.same(JSON.parse(fs.readFileSync(path.join(out, 'migration-report.json'), 'utf8')), result.body, 'the report file is what --json printed');
  const document = JSON.parse(fs.readFileSync(path.join(out, 'fence-patrol.v2.json'), 'utf8'));
  t.match(document.json.properties.fencerep_damage.anyOf[0].$ref, /^\/api\/v2\.0\/schemas\/choices\.json\?field=fixture_damage$/, 'tags become root-relative choice references (--base-url /api)');
  const lint = await cli.run(['lint', path.join(out, 'fence-patrol.v2.json'), '--no-mirror']);
  t.equal(lint.code, 0, `the result lints clean: ${lint.stdout}`);
  const text = await cli.run(['migrate', path.join(schemas, 'fence-patrol.v1.txt'), '--out', out, '--choices', path.join(schemas, 'choices.json'), '--base-url', 'https://field.example/api']);
  t.equal(text.code, 0);
  t.match(text.stdout, /✔ .*fence-patrol\.v1\.txt → .*fence-patrol\.v2\.json \(2 warnings\), 3 new choices\n  .*fence-patrol\.v1\.txt:19:17  warning  choice values of `fencerep_urgency` were changed/);
  t.match(JSON.parse(fs.readFileSync(path.join(out, 'fence-patrol.v2.json'), 'utf8')).json.properties.fencerep_damage.anyOf[0].$ref, /^https:\/\/field\.example\/api\/v2\.0\/schemas\/choices\.json/);
});

t.test('usage errors exit 2', async (t) => {
  const cli = cliEnv(t);
  const file = path.join(schemas, 'fence-patrol.v1.txt');
  for (const [args, pattern] of [
    [[file], /--out <dir> is required/],
    [['--remote'], /needs at least one --event-type/],
    [['--remote', file, '--event-type', 'x'], /takes event type values, not files/],
    [[file, '--out', cli.dir, '--apply'], /--apply and --event-type need --remote/],
    [[path.join(schemas, 'no-such.v1.txt'), '--out', cli.dir], /cannot read .*no-such\.v1\.txt: ENOENT/],
  ] as const) {
    const result = await cli.run(['migrate', ...args]);
    t.equal(result.code, 2, args.join(' '));
    t.match(result.stderr, pattern);
  }
});

const shared = sharedDir();
t.test('offline: the v1 corpus', { skip: shared ? false : 'shared corpus not found (set FIELDOPS_SHARED_DIR); skipping' }, async (t) => {
  const corpus = path.join(shared!, 'corpus', 'earthranger');
  const files = fs.readdirSync(corpus).filter((f) => f.endsWith('.v1.txt')).sort().map((f) => path.join(corpus, f));
  const choices = path.join(corpus, fs.readdirSync(corpus).find((f) => f.endsWith('__choices.json'))!);
  const cli = cliEnv(t);
  const out = path.join(cli.dir, 'corpus');
  const result = await cli.json(['migrate', ...files, '--out', out, '--choices', choices]);
  t.equal(result.code, 1, 'BAD_SCHEMA (er-server\'s own example of a bad schema) fails');
  const byName = Object.fromEntries(result.body.files.map((f: any) => [path.basename(f.input).replace(/^.*__/, ''), f]));
  t.same(Object.keys(byName).sort(), ['BAD_SCHEMA.v1.txt', 'ET_SCHEMA.v1.txt', 'carcass_rep.v1.txt', 'hwc_rep.v1.txt', 'mobile_checkbox_schema.v1.txt', 'rhino_sighting_rep.v1.txt', 'test_hugo.v1.txt']);
  // The same outcomes the toolkit's corpus test records (test/schema/corpus.test.ts).
  t.same(Object.fromEntries(Object.entries(byName).map(([name, f]: [string, any]) => [name, [f.status, f.errors.length, f.warnings.length]])), {
    'BAD_SCHEMA.v1.txt': ['failed', 1, 2],
    'ET_SCHEMA.v1.txt': ['migrated with warnings', 0, 6],
    'carcass_rep.v1.txt': ['migrated', 0, 0],
    'hwc_rep.v1.txt': ['migrated', 0, 0],
    'mobile_checkbox_schema.v1.txt': ['migrated with warnings', 0, 4],
    'rhino_sighting_rep.v1.txt': ['migrated with warnings', 0, 1],
    'test_hugo.v1.txt': ['migrated with warnings', 0, 9],
  });
  t.same(byName['BAD_SCHEMA.v1.txt'].errors.map((e: any) => [e.code, e.line, e.column]), [['v1_template_error', 35, 25]]);
  t.equal(result.body.new_choices, 3, 'the mobile mock\'s inline titleMap becomes a new list');
  const written = fs.readdirSync(out).filter((f) => f.endsWith('.v2.json'));
  t.equal(written.length, 6);
  const lint = await cli.json(['lint', out, '--no-mirror']);
  t.equal(lint.body.summary.errors, 0, 'every migrated document passes lint');
  t.equal(lint.body.summary.documents, 6);
  const before = written.map((f) => fs.readFileSync(path.join(out, f), 'utf8'));
  await cli.run(['migrate', ...files, '--out', out, '--choices', choices]);
  t.same(written.map((f) => fs.readFileSync(path.join(out, f), 'utf8')), before, 'deterministic: the same bytes again');
});

t.test('remote: dry run, then apply, then sync sees the v2 type', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  for (const choice of JSON.parse(fixtureText('schemas/choices.json'))) await s.json('/api/v2.0/choices', send('POST', choice, token));
  const created = await s.json('/api/v1.0/activity/events/eventtypes', send('POST', { value: 'fence_patrol_rep', display: 'Fence patrol', schema: fixtureText('schemas/fence-patrol.v1.txt') }, token));
  t.equal(created.status, 201, JSON.stringify(created.body));
  const cli = cliEnv(t);
  t.equal((await cli.login(s.url)).code, 0);

  const dry = await cli.run(['migrate', '--remote', '--event-type', 'fence_patrol_rep']);
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, /✔ fence_patrol_rep: 0 errors, \d+ warnings[\s\S]*Dry run: nothing was changed on the server/);
  t.equal((await s.json('/api/v2.0/activity/eventtypes/fence_patrol_rep', { token })).status, 404, 'a dry run changes nothing');

  const refused = await cli.json(['migrate', '--remote', '--event-type', 'fence_patrol_rep', '--event-type', 'no_such_type', '--apply']);
  t.equal(refused.code, 1);
  t.equal(refused.body.applied, false);
  t.same(refused.body.results.map((r: any) => [r.event_type, r.errors.length > 0]), [['fence_patrol_rep', false], ['no_such_type', true]]);
  t.equal((await s.json('/api/v2.0/activity/eventtypes/fence_patrol_rep', { token })).status, 404, 'all or nothing');

  const out = path.join(cli.dir, 'remote');
  const applied = await cli.run(['migrate', '--remote', '--event-type', 'fence_patrol_rep', '--apply', '--out', out]);
  t.equal(applied.code, 0, applied.stderr);
  t.match(applied.stdout, /Applied: the event types are now version 2, and the choice lists they need were created on the server/);
  t.ok(fs.existsSync(path.join(out, 'fence_patrol_rep.v2.json')), '--out keeps the returned documents');
  const sync = await cli.run(['sync']);
  t.equal(sync.code, 0, sync.stderr);
  const shown = await cli.json(['types', 'show', 'fence_patrol_rep', '--kind', 'event']);
  t.equal(shown.body.version, '2');
  t.same(shown.body.schema, JSON.parse(fs.readFileSync(path.join(out, 'fence_patrol_rep.v2.json'), 'utf8')));
});
