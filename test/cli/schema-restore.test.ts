/**
 * Issue 28 items 3 and 5 through the real binary: `schema restore` (dry run writes nothing; a
 * round trip), and `schema draft|publish|discard` (a draft changes nothing until published;
 * breaking changes stop the publish, `--allow-breaking` with `--reason` lets it through).
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { currentSchema, revisionOne, revisionTwo, revisions, schemaWorld, TYPE, writeJson } from '../helpers/schema-cli.js';
import { EVENTS } from '../sync/offline-fixtures.js';

t.test('restore: dry run writes nothing; restore writes a revision equal to the old one', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli, s, token } = world;
  t.equal(await revisions(s, token), 2);

  const dry = await cli.run(['schema', 'restore', TYPE, '--to', '1', '--dry-run']);
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, /current \(revision 2\) → revision 1/);
  t.match(dry.stdout, /\/count .*field\.removed/);
  t.match(dry.stdout, /dry run: restoring would write revision 3; nothing was written/);
  t.equal(await revisions(s, token), 2, 'the dry run wrote nothing');
  const dryJson = await cli.json(['schema', 'restore', TYPE, '--to', '1', '--dry-run']);
  t.equal(dryJson.body.would_change, true);
  t.ok(dryJson.body.diff.changes.length > 0);
  t.equal(await revisions(s, token), 2);

  const restored = await cli.run(['schema', 'restore', TYPE, '--to', '1']);
  t.equal(restored.code, 0, restored.stderr);
  t.match(restored.stdout, /restored "wildlife_sighting" to the content of revision 1: now revision 3/);
  t.equal(await revisions(s, token), 3);
  t.equal((await cli.run(['schema', 'diff', TYPE, '--from', '1', '--to', '3'])).code, 0, 'revision 3 equals revision 1');
  t.equal((await cli.run(['schema', 'diff', TYPE, '--from', '2', '--to', 'server'])).code, 1, 'and differs from 2');
  t.equal((await currentSchema(s, token) as any).json.properties.count, undefined);

  const again = await cli.run(['schema', 'restore', TYPE, '--to', '1']);
  t.equal(again.code, 0);
  t.match(again.stdout, /already equals revision 1: nothing written/);
  t.equal(await revisions(s, token), 3, 'restoring what is current writes nothing');

  const tooFar = await cli.run(['schema', 'restore', TYPE, '--to', '9']);
  t.equal(tooFar.code, 1);
  t.match(tooFar.stderr, /^error: "wildlife_sighting" has no revision 9\nhint: its revisions are 1 to 3/m);
  const notNumber = await cli.run(['schema', 'restore', TYPE, '--to', 'two']);
  t.equal(notNumber.code, 2);
  const unknown = await cli.run(['schema', 'restore', 'nope', '--to', '1']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /^error: no event type "nope"/m);
  t.equal(await revisions(s, token), 3);
});

t.test('draft, publish, discard', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli, s, token } = world;
  const three = revisionTwo();
  three.json.properties.weather = { type: 'string', title: 'Weather', maxLength: 50 };
  three.ui.fields.weather = { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'main' };
  three.ui.sections.main.leftColumn.push({ name: 'weather', type: 'field' });
  const file = writeJson(cli, 'three.json', three);

  const noDraft = await cli.run(['schema', 'discard', TYPE]);
  t.equal(noDraft.code, 1);
  t.match(noDraft.stderr, /^error: "wildlife_sighting" has no draft .*\nhint: store one first/m);

  const draft = await cli.run(['schema', 'draft', TYPE, file]);
  t.equal(draft.code, 0, draft.stderr);
  t.match(draft.stdout, /draft of "wildlife_sighting" stored \(based on revision 2\)/);
  t.equal(await revisions(s, token), 2, 'a draft is no revision');
  t.equal((await cli.run(['schema', 'diff', TYPE, '--from', '2', '--to', 'server'])).code, 0, 'the current schema did not move');

  const published = await cli.run(['schema', 'publish', TYPE]);
  t.equal(published.code, 0, published.stdout + published.stderr);
  t.match(published.stdout, /published the draft of "wildlife_sighting": now revision 3/);
  t.equal((await cli.run(['schema', 'diff', TYPE, '--to', file])).code, 0, 'the published schema is the draft');
  t.equal((await cli.run(['schema', 'publish', TYPE])).code, 1, 'the draft is gone after publishing');

  t.equal((await cli.run(['schema', 'draft', TYPE, file])).code, 0);
  const discarded = await cli.run(['schema', 'discard', TYPE]);
  t.equal(discarded.code, 0, discarded.stderr);
  t.match(discarded.stdout, /draft of "wildlife_sighting" discarded/);
  t.equal(await revisions(s, token), 3, 'discarding writes no revision');

  const unreadable = await cli.run(['schema', 'draft', TYPE, 'missing.json']);
  t.equal(unreadable.code, 2);
  t.match(unreadable.stderr, /^error: cannot read missing\.json/m);
  const invalid = revisionOne() as any;
  invalid.json.properties.notes.type = 'strng';
  const refused = await cli.run(['schema', 'draft', TYPE, writeJson(cli, 'invalid.json', invalid)]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /^error: the server refused the draft of "wildlife_sighting"/m);
});

t.test('publish: breaking changes are listed and stop it; --allow-breaking with --reason lets it through', async (t) => {
  const world = await schemaWorld(t);
  if (!world) return;
  const { cli, s, token } = world;
  for (const [i, notes] of ['first', 'second'].entries()) {
    const created = await s.json(EVENTS, send('POST', { event_type: TYPE, time: `2026-11-20T0${i}:00:00Z`, event_details: { notes } }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
  }
  const withoutNotes = revisionTwo();
  delete withoutNotes.json.properties.notes;
  delete withoutNotes.ui.fields.notes;
  withoutNotes.ui.sections.main.leftColumn = withoutNotes.ui.sections.main.leftColumn.filter((e: any) => e.name !== 'notes');
  t.equal((await cli.run(['schema', 'draft', TYPE, writeJson(cli, 'drop.json', withoutNotes)])).code, 0);

  const blocked = await cli.run(['schema', 'publish', TYPE]);
  t.equal(blocked.code, 1, blocked.stderr);
  t.match(blocked.stdout, /error {2}breaking\/removed-field {2}notes {2}2 events/);
  t.match(blocked.stdout, /hint: /);
  t.match(blocked.stdout, /not published/);
  t.equal(await revisions(s, token), 2, 'nothing published');
  const blockedJson = await cli.json(['schema', 'publish', TYPE]);
  t.equal(blockedJson.code, 1);
  t.equal(blockedJson.body.published, false);
  t.equal(blockedJson.body.findings[0].rule, 'breaking/removed-field');

  const noReason = await cli.run(['schema', 'publish', TYPE, '--allow-breaking', 'breaking/removed-field']);
  t.equal(noReason.code, 2);
  t.match(noReason.stderr, /^error: --allow-breaking needs --reason TEXT\nhint: /m);
  const badRule = await cli.run(['schema', 'publish', TYPE, '--allow-breaking', 'breaking/nope', '--reason', 'x']);
  t.equal(badRule.code, 2);
  t.match(badRule.stderr, /no such rule/);
  const allowed = await cli.run(['schema', 'publish', TYPE, '--allow-breaking', 'breaking/removed-field', '--reason', 'notes move to the comment field']);
  t.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  t.match(allowed.stdout, /now revision 3/);
  t.equal(await revisions(s, token), 3);
});
