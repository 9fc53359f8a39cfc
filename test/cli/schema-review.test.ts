/**
 * Issue 28 (review) through the real binary: schemas beyond the diff engine's limits are an
 * `error:` + `hint:` (never "unexpected error"), `schema publish` after the type moved on says
 * which revisions and offers --rebase, and plain `schema diff T` offline says why it cannot.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { cliEnv } from '../helpers/cli-env.js';
import { copyWorld, EVENT_TYPES, patchSchema, revisionTwo, schemaWorld, TYPE, writeJson } from '../helpers/schema-cli.js';
import { seedCatalog } from '../helpers/sync-seed.js';

/** Revision 2 plus `count` more string fields (the engine compares at most 20,000). */
function bigSchema(count: number) {
  const doc = revisionTwo();
  for (let i = 0; i < count; i++) doc.json.properties[`f${i}`] = { type: 'string' };
  return doc;
}

const noBug = /unexpected error|at .*\.js:\d+/;

t.test('schemas beyond the diff limits: error and hint', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli } = world;
  const big = writeJson(cli, 'big.json', bigSchema(21000));

  const diff = await cli.run(['schema', 'diff', TYPE, '--to', big]);
  t.equal(diff.code, 1, diff.stderr);
  t.match(diff.stderr, /^error: cannot compare "wildlife_sighting": .*more than 20000 fields \(at \/json[^)]*\)\nhint: /m);
  t.notMatch(diff.stderr, noBug);

  const draft = await cli.run(['schema', 'draft', TYPE, big]);
  t.equal(draft.code, 1, 'the server refuses the draft up front');
  t.match(draft.stderr, /^error: .*schema_diff_limit|^error: .*too large to compare/m);
  t.notMatch(draft.stderr, noBug);

  const typed = path.join(cli.dir, `${TYPE}.v2.json`);
  fs.copyFileSync(big, typed);
  const lint = await cli.run(['lint', typed, '--against', 'default']);
  t.equal(lint.code, 1, lint.stdout + lint.stderr);
  t.match(lint.stderr, /^error: cannot compare .*wildlife_sighting.*more than 20000 fields.*\nhint: /m);
  t.notMatch(lint.stderr, noBug);
});

t.test('publish of a draft the type moved past: which revisions, and --rebase', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli, s, token } = world;
  const next = revisionTwo();
  next.json.properties.extra = { type: 'string', title: 'Extra' };
  t.equal((await cli.run(['schema', 'draft', TYPE, writeJson(cli, 'next.json', next)])).code, 0);
  const moved = await s.json(`${EVENT_TYPES}/${TYPE}`, send('PATCH', { display: 'Moved on' }, token));
  t.equal(moved.status, 200);

  const refused = await cli.run(['schema', 'publish', TYPE]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /^error: the draft of "wildlife_sighting" is based on revision 2; the type is now at revision 3\n/m);
  t.match(refused.stderr, /^hint: .*fieldops schema diff wildlife_sighting --from 2 --to server.*--rebase/m);
  t.notMatch(refused.stderr, /changed on the server while this command ran/, 'not "run again"');

  const rebased = await cli.json(['schema', 'publish', TYPE, '--rebase']);
  t.equal(rebased.code, 0, rebased.stderr);
  t.match(rebased.body, { published: true, revision: 4 });
});

t.test('plain `schema diff T` with the server unreachable', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli, s } = world;
  await s.server.close();
  const plain = await cli.run(['schema', 'diff', TYPE]);
  t.equal(plain.code, 1);
  t.match(plain.stderr, /^error: cannot reach the server .*the mirror keeps only the current revision\nhint: .*--offline --to FILE/m);
  t.notMatch(plain.stderr, noBug);
  const help = await cli.run(['schema', 'diff', '--help']);
  t.match(help.stdout, /cannot \(the mirror keeps no earlier\s+revision\)/, 'the help says so');
});

t.test('schema copy of a type beyond the diff limits: error and hint', async (t) => {
  const world = await copyWorld(t);
  if (!world) return;
  const { source, target, sourceToken, targetToken } = world;
  await seedCatalog(source, sourceToken);
  await seedCatalog(target, targetToken);
  await patchSchema(source, sourceToken, bigSchema(21000));
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1' });
  t.equal((await cli.login(source.url, undefined, undefined, ['--profile', 'prod'])).code, 0);
  t.equal((await cli.login(target.url, undefined, undefined, ['--profile', 'staging'])).code, 0);
  const copy = await cli.run(['schema', 'copy', TYPE, '--from', 'prod', '--to', 'staging', '--dry-run']);
  t.equal(copy.code, 1, copy.stdout + copy.stderr);
  t.match(copy.stderr, /^error: cannot compare "wildlife_sighting" with the target's copy: .*more than 20000 fields.*\nhint: /m);
  t.notMatch(copy.stderr, noBug);
});
