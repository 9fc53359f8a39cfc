/**
 * Issue 28 item 6 through the real binary: `schema copy` between two profiles (two servers, each
 * its own database) carries the category and the choice lists a type references, is idempotent
 * (a rerun writes nothing: the target's history and choices do not move), and `--dry-run`
 * writes nothing.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { cliEnv } from '../helpers/cli-env.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { copyWorld, EVENT_TYPES, patchSchema, revisions, revisionTwo, TYPE } from '../helpers/schema-cli.js';
import { CHOICES, seedCatalog } from '../helpers/sync-seed.js';

async function speciesOn(s: TestServer, token: string): Promise<Array<{ value: string; display: string }>> {
  const response = await s.json(`${CHOICES}?field=species&include_inactive=true`, { token });
  const body = response.body.data ?? response.body;
  return (body.results ?? body).map((c: any) => ({ value: c.value, display: c.display })).sort((a: any, b: any) => a.value.localeCompare(b.value));
}

t.test('copy between two servers: plan, write, idempotent rerun, updates', async (t) => {
  const world = await copyWorld(t);
  if (!world) return;
  const { source, target, sourceToken, targetToken } = world;
  await seedCatalog(source, sourceToken);
  await patchSchema(source, sourceToken, revisionTwo());
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1' });
  t.equal((await cli.login(source.url, undefined, undefined, ['--profile', 'prod'])).code, 0);
  t.equal((await cli.login(target.url, undefined, undefined, ['--profile', 'staging'])).code, 0);
  const copy = (...extra: string[]) => cli.run(['schema', 'copy', TYPE, '--from', 'prod', '--to', 'staging', ...extra]);

  const dry = await copy('--dry-run');
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, /category +monitoring +create/);
  t.match(dry.stdout, /choice list +species +create +3 new, 0 changed choices/);
  t.match(dry.stdout, /event type +wildlife_sighting +create/);
  t.match(dry.stdout, /dry run: would write 5 changes; nothing was written/);
  t.equal((await target.json(`${EVENT_TYPES}/${TYPE}`, { token: targetToken })).status, 404, 'the dry run created no type');
  t.same(await speciesOn(target, targetToken), [], 'nor choices');

  const first = await cli.json(['schema', 'copy', TYPE, '--from', 'prod', '--to', 'staging']);
  t.equal(first.code, 0, first.stderr);
  t.equal(first.body.writes, 5);
  t.same(first.body.types, [{ value: TYPE, action: 'create', changed: [] }]);
  t.same(await speciesOn(target, targetToken), await speciesOn(source, sourceToken), 'the choice list is carried');
  const staged = await target.json(`${EVENT_TYPES}/${TYPE}?include_schema=true`, { token: targetToken });
  t.equal(staged.status, 200);
  t.same(staged.body.schema.json.properties.count, revisionTwo().json.properties.count);
  t.equal(staged.body.category, 'monitoring');
  const history = await revisions(target, targetToken);

  const rerun = await copy();
  t.equal(rerun.code, 0, rerun.stderr);
  t.match(rerun.stdout, /event type +wildlife_sighting +unchanged/);
  t.match(rerun.stdout, /unchanged: nothing to write/);
  t.equal(await revisions(target, targetToken), history, 'the rerun wrote no revision');
  const all = await cli.json(['schema', 'copy', '--all', '--from', 'prod', '--to', 'staging']);
  t.equal(all.code, 0, all.stderr);
  t.equal(all.body.writes, 0, '--all: nothing differs either');
  t.equal(await revisions(target, targetToken), history);

  // Changes on the source: a new choice, a changed display, a changed schema.
  t.equal((await source.json(CHOICES, send('POST', { field: 'species', value: 'zebra', display: 'Zebra', ordernum: 40 }, sourceToken))).status, 201);
  t.equal((await source.json(`${EVENT_TYPES}/${TYPE}`, send('PATCH', { display: 'Wildlife seen' }, sourceToken))).status, 200);
  const planned = await cli.json(['schema', 'copy', TYPE, '--from', 'prod', '--to', 'staging', '--dry-run']);
  t.equal(planned.body.dry_run, true);
  t.same(planned.body.choice_lists, [{ name: 'species', action: 'update', choices_created: 1, choices_updated: 0 }]);
  t.same(planned.body.types, [{ value: TYPE, action: 'update', changed: ['display'] }]);
  t.equal(await revisions(target, targetToken), history, 'the dry run wrote nothing');
  t.equal((await speciesOn(target, targetToken)).length, 3);

  const update = await copy();
  t.equal(update.code, 0, update.stderr);
  t.equal(await revisions(target, targetToken), history + 1, 'one new revision on the target');
  t.same(await speciesOn(target, targetToken), await speciesOn(source, sourceToken));
  t.equal((await target.json(`${EVENT_TYPES}/${TYPE}`, { token: targetToken })).body.display, 'Wildlife seen');
  t.match((await copy()).stdout, /unchanged: nothing to write/, 'and again idempotent');
  t.equal(await revisions(target, targetToken), history + 1);
});

t.test('copy: user errors', async (t) => {
  const source = await startTestServer(t);
  if (!source) return;
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1' });
  t.equal((await cli.login(source.url, undefined, undefined, ['--profile', 'prod'])).code, 0);
  const same = await cli.run(['schema', 'copy', TYPE, '--from', 'prod', '--to', 'prod']);
  t.equal(same.code, 2);
  t.match(same.stderr, /^error: --from and --to are the same profile/m);
  const none = await cli.run(['schema', 'copy', '--from', 'prod', '--to', 'other']);
  t.equal(none.code, 2);
  t.match(none.stderr, /^error: no type to copy\nhint: /m);
  const both = await cli.run(['schema', 'copy', TYPE, '--all', '--from', 'prod', '--to', 'other']);
  t.equal(both.code, 2);
  const loggedOut = await cli.run(['schema', 'copy', 'whatever', '--from', 'prod', '--to', 'nobody']);
  t.equal(loggedOut.code, 1, 'a profile never logged in');
  t.match(loggedOut.stderr, /^error: .*\nhint: /m);
  t.equal((await cli.login(source.url, undefined, undefined, ['--profile', 'copy2'])).code, 0);
  const unknown = await cli.run(['schema', 'copy', 'no_such_type', '--from', 'prod', '--to', 'copy2']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /^error: no event type "no_such_type"/m);
});
