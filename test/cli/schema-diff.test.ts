/**
 * Issue 28 items 1 and 3 through the real binary: `fieldops schema diff` (exit codes, the three
 * formats, revisions, dates, files, the mirror offline) and `fieldops schema show --as-of`.
 */
import fs from 'node:fs';
import t from 'tap';
import { revisionOne, revisionTwo, schemaWorld, TYPE, writeJson } from '../helpers/schema-cli.js';

t.test('diff: exit codes, formats, sources', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli } = world;

  const last = await cli.run(['schema', 'diff', TYPE]);
  t.equal(last.code, 1, `the default compares the last change: different (${last.stderr})`);
  t.match(last.stdout, /wildlife_sighting: revision 1 .*→ server \(revision 2\)/);
  t.match(last.stdout, /\/count/);
  t.match(last.stdout, /field\.added/);

  const same = await cli.run(['schema', 'diff', TYPE, '--from', '2', '--to', 'server']);
  t.equal(same.code, 0, same.stderr);
  t.match(same.stdout, /identical/);

  const json = await cli.run(['schema', 'diff', TYPE, '--from', '1', '--to', '2', '--format', 'json']);
  t.equal(json.code, 1);
  const body = JSON.parse(json.stdout);
  t.equal(body.identical, false);
  t.ok(body.changes.some((c: any) => c.kind === 'field.added' && c.path.endsWith('/count')), 'count is added');
  const flag = await cli.json(['schema', 'diff', TYPE, '--from', '1', '--to', '2']);
  t.equal(flag.code, 1);
  t.same(flag.body.changes, body.changes, '--json is the json format');

  const markdown = await cli.run(['schema', 'diff', TYPE, '--from', '1', '--to', '2', '--format', 'markdown']);
  t.equal(markdown.code, 1);
  t.match(markdown.stdout, /\|.*count.*\|/);

  // Files: a document, and an event-type export holding `schema`.
  const one = writeJson(cli, 'one.json', revisionOne());
  t.equal((await cli.run(['schema', 'diff', TYPE, '--from', '1', '--to', one])).code, 0, 'revision 1 equals its document');
  const exported = writeJson(cli, 'export.json', { value: TYPE, display: 'x', schema: revisionTwo() });
  const fromFile = await cli.run(['schema', 'diff', TYPE, '--to', exported]);
  t.equal(fromFile.code, 0, `--to FILE compares with the server's current: ${fromFile.stdout}${fromFile.stderr}`);
  t.equal((await cli.run(['schema', 'diff', TYPE, '--from', one, '--to', exported])).code, 1, 'two files that differ');

  // Dates: now is the current revision; before the type existed is an error.
  const now = await cli.run(['schema', 'diff', TYPE, '--from', new Date(Date.now() + 60_000).toISOString()]);
  t.equal(now.code, 0, `as of now = current: ${now.stderr}`);
  const before = await cli.run(['schema', 'diff', TYPE, '--from', '2001-01-01']);
  t.equal(before.code, 1);
  t.match(before.stderr, /^error: .*has no 2001-01-01/m);
  t.match(before.stderr, /^hint: /m);

  // The mirror (synced at revision 2).
  t.equal((await cli.run(['schema', 'diff', TYPE, '--from', 'mirror'])).code, 0, 'the mirror holds the current revision');
});

t.test('diff: user errors', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli } = world;
  const unknown = await cli.run(['schema', 'diff', 'no_such_type']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /^error: no event type "no_such_type"/m);
  t.match(unknown.stderr, /^hint: /m);
  const badRevision = await cli.run(['schema', 'diff', TYPE, '--from', '99']);
  t.equal(badRevision.code, 1);
  t.match(badRevision.stderr, /^error: .*has no revision 99\nhint: its revisions are 1 to 2/m);
  const missing = await cli.run(['schema', 'diff', TYPE, '--to', 'nowhere.json']);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /^error: cannot read nowhere\.json \(ENOENT\)\nhint: /m);
  const notJson = writeJson(cli, 'bad.json', {});
  fs.writeFileSync(notJson, '{ not json');
  const bad = await cli.run(['schema', 'diff', TYPE, '--to', notJson]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^error: .* is not JSON/m);
  const noDocument = writeJson(cli, 'empty.json', { value: TYPE });
  const empty = await cli.run(['schema', 'diff', TYPE, '--to', noDocument]);
  t.equal(empty.code, 2);
  t.match(empty.stderr, /holds no \{json, ui\} schema document/);
  const format = await cli.run(['schema', 'diff', TYPE, '--format', 'sarif']);
  t.equal(format.code, 2, 'a format the diff does not have is a usage error');
  const offline = await cli.run(['schema', 'diff', TYPE, '--offline', '--from', '1']);
  t.equal(offline.code, 2);
  t.match(offline.stderr, /^error: --offline compares only the mirror and files/m);
  t.notMatch(unknown.stderr + badRevision.stderr + missing.stderr, /unexpected error|at .*\.js:\d+/, 'no stacks');
});

t.test('show --as-of round trip', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli } = world;
  const one = await cli.run(['schema', 'show', TYPE, '--as-of', '1']);
  t.equal(one.code, 0, one.stderr);
  const shown = JSON.parse(one.stdout);
  t.ok(shown.json.properties.notes && !shown.json.properties.count, 'revision 1: no count');
  const file = writeJson(cli, 'shown.json', shown);
  t.equal((await cli.run(['schema', 'diff', TYPE, '--from', '1', '--to', file])).code, 0, 'what show printed is revision 1');
  const current = await cli.json(['schema', 'show', TYPE]);
  t.equal(current.code, 0);
  t.equal(current.body.revision, 2);
  t.ok(current.body.schema.json.properties.count, 'current: count');
  const two = await cli.json(['schema', 'show', TYPE, '--as-of', '2']);
  t.same(two.body.schema, current.body.schema, 'as of 2 = current');
  const bad = await cli.run(['schema', 'show', TYPE, '--as-of', 'yesterday']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^error: --as-of "yesterday" is not one of: revision, date\nhint: /m);
  const tooFar = await cli.run(['schema', 'show', TYPE, '--as-of', '7']);
  t.equal(tooFar.code, 1);
  t.match(tooFar.stderr, /^hint: its revisions are 1 to 2/m);
});

t.test('offline: diff and show against the mirror with the server stopped', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli, s } = world;
  const file = writeJson(cli, 'one.json', revisionOne());
  await s.server.close();
  const diff = await cli.run(['schema', 'diff', TYPE, '--from', 'mirror', '--to', file]);
  t.equal(diff.code, 1, diff.stderr);
  t.match(diff.stdout, /wildlife_sighting: mirror → .*one\.json/);
  t.match(diff.stdout, /\/count/, 'the mirror has count, the file does not');
  t.equal(diff.stderr, '', 'no network attempted');
  const offline = await cli.run(['schema', 'diff', TYPE, '--offline', '--to', file]);
  t.equal(offline.code, 1, offline.stderr);
  const fallback = await cli.run(['schema', 'diff', TYPE, '--from', file]);
  t.equal(fallback.code, 1);
  t.match(fallback.stderr, /^warning: cannot reach the server .*using the mirror's copy instead/m);
  const show = await cli.run(['schema', 'show', TYPE, '--offline']);
  t.equal(show.code, 0, show.stderr);
  t.ok(JSON.parse(show.stdout).json.properties.count);
});
