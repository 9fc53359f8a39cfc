/**
 * Field conflicts on the laptop (issue 26 §3), with the real binary (both databases): a mirror
 * whose entry met conflicts on two fields (rows in `outbox_conflicts`, as the push stores them)
 * and one settled by the tenant's policy. `fieldops outbox` shows one line per field
 * (`state  base=active  mine=resolved  theirs=new  (open)`), `--json` too; `fieldops outbox
 * resolve <id> [--field F] --mine|--theirs` queues one `conflict.resolve` entry per open field,
 * offline, never twice; mistakes are `error:` + `hint:` with exit 2.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { syncedCli } from '../sync/offline-fixtures.js';

t.test('conflicts shown per field and settled offline', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  await seedCatalog(s, (await s.login()).access_token);
  const cli = await syncedCli(t, s.url);
  const made = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', JSON.stringify({ species: 'lion' })]);
  t.equal(made.code, 0, made.stderr);
  const entry = made.body.id as string;
  const state = randomUUID();
  const title = randomUUID();
  const priority = randomUUID();
  // What the push stores for an entry the server merged with conflicts (sync/outbox/conflicts.ts saveConflicts).
  const db = new Database(cli.mirror);
  db.prepare(`update outbox set status = 'conflict' where id = ?`).run(entry);
  const insert = db.prepare('insert into outbox_conflicts (id, entry_id, field, base, mine, theirs, status, policy, settled_by) values (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  insert.run(state, entry, 'state', '"active"', '"resolved"', '"new"', 'open', 'hold', null);
  insert.run(title, entry, 'title', '"Lions"', '"Lions at the river"', '"Pride seen twice"', 'open', 'hold', null);
  insert.run(priority, entry, 'priority', '100', '200', '300', 'settled', 'server_wins', 'policy');
  db.close();
  const resolutions = () => {
    const read = new Database(cli.mirror, { readonly: true });
    try {
      return (read.prepare(`select id, target, body, status from outbox where kind = 'conflict.resolve' order by seq`).all() as Array<{ id: string; target: string; body: string; status: string }>).map((r) => ({ ...r, body: JSON.parse(r.body) }));
    } finally {
      read.close();
    }
  };

  await t.test('fieldops outbox: one line per field, open or settled', async (t) => {
    const shown = await cli.run(['outbox']);
    t.equal(shown.code, 0, shown.stderr);
    t.match(shown.stdout, new RegExp(`${entry} \\(event\\.create of ${entry}\\):`));
    t.match(shown.stdout, /^ {2}state {2}base=active {2}mine=resolved {2}theirs=new {2}\(open\)$/m);
    t.match(shown.stdout, /^ {2}title {2}base=Lions {2}mine="Lions at the river" {2}theirs="Pride seen twice" {2}\(open\)$/m);
    t.match(shown.stdout, /^ {2}priority {2}base=100 {2}mine=200 {2}theirs=300 {2}\(settled: server wins\)$/m);
    t.match(shown.stdout, /settle with `fieldops outbox resolve <id> \[--field F\] --mine\|--theirs`/);
    t.match(shown.stdout, /0 pending, 0 sent, 0 rejected, 1 in conflict/);

    const json = await cli.json(['outbox']);
    const listed = json.body.entries.find((e: any) => e.id === entry);
    t.same(listed.conflicts.map((c: any) => [c.field, c.base, c.mine, c.theirs, c.status, c.queued]), [
      ['priority', 100, 200, 300, 'settled', null],
      ['state', 'active', 'resolved', 'new', 'open', null],
      ['title', 'Lions', 'Lions at the river', 'Pride seen twice', 'open', null],
    ]);
    t.match(listed.conflicts[0], { id: priority, policy: 'server_wins', settled_by: 'policy' });
    const one = await cli.json(['outbox', 'show', entry.slice(0, 8)]);
    t.equal(one.body.conflicts.length, 3, '`outbox show` has them too');
  });

  await t.test('resolve --field state --mine: one conflict.resolve entry, queued offline', async (t) => {
    const resolved = await cli.json(['outbox', 'resolve', entry, '--field', 'state', '--mine']);
    t.equal(resolved.code, 0, resolved.stderr);
    t.match(resolved.body, { id: entry, choice: 'mine', fields: ['state'] });
    t.match(resolutions(), [{ id: resolved.body.queued[0], target: state, status: 'pending', body: { choice: 'mine' } }]);
    const shown = await cli.run(['outbox']);
    t.match(shown.stdout, /^ {2}state .*\(open; --mine queued, sent by the next push\)$/m, 'shown as settled once the push sends it');
    t.match(shown.stdout, /^ {2}title .*\(open\)$/m);
    t.match(shown.stdout, /1 pending, 0 sent, 0 rejected, 1 in conflict/);
  });

  await t.test('resolve --theirs: every field still open, never one twice', async (t) => {
    const resolved = await cli.run(['outbox', 'resolve', entry.slice(0, 8), '--theirs']);
    t.equal(resolved.code, 0, resolved.stderr);
    t.match(resolved.stdout, /theirs queued for state, title of .* \(1 entry\); `fieldops push` sends it/);
    t.same(resolutions().map((r) => [r.target, r.body.choice]), [[state, 'mine'], [title, 'theirs']], 'state keeps its first choice; title gets one');
    const again = await cli.run(['outbox', 'resolve', entry, '--field', 'title', '--theirs']);
    t.equal(again.code, 0);
    t.match(again.stdout, /the resolution of title was queued already/);
    t.equal(resolutions().length, 2, 'nothing queued twice');
  });

  await t.test('mistakes: error and hint', async (t) => {
    const both = await cli.run(['outbox', 'resolve', entry, '--mine', '--theirs']);
    t.equal(both.code, 2);
    t.match(both.stderr, /^error: say which value wins\nhint: pass exactly one of --mine or --theirs/m);
    const field = await cli.run(['outbox', 'resolve', entry, '--field', 'location', '--mine']);
    t.equal(field.code, 2);
    t.match(field.stderr, /^error: .* has no open conflict on location\nhint: its open fields: state, title/m);
    const settled = await cli.run(['outbox', 'resolve', entry, '--field', 'priority', '--mine']);
    t.equal(settled.code, 2, 'a field settled by the policy is not open');
    const unknown = await cli.run(['outbox', 'resolve', 'ffffffff', '--mine']);
    t.equal(unknown.code, 1);
    t.match(unknown.stderr, /^error: no outbox entry ffffffff\nhint: `fieldops outbox --all` lists them/m);
    const plain = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', JSON.stringify({ species: 'rhino' })]);
    const notConflict = await cli.run(['outbox', 'resolve', plain.body.id, '--field', 'state', '--mine']);
    t.equal(notConflict.code, 2);
    t.match(notConflict.stderr, /^error: .* has no field conflicts\nhint: `fieldops outbox` lists the conflicts/m);
    t.equal(resolutions().length, 2, 'no mistake queued anything');
    const drop = await cli.run(['outbox', 'drop', entry]);
    t.equal(drop.code, 2, 'an entry with open field conflicts is settled, not dropped');
    t.match(drop.stderr, /^error: .* was applied on the server except for fields in conflict\nhint: settle them instead: fieldops outbox resolve .* --theirs/m);
  });
});
