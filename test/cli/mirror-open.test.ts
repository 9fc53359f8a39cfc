/**
 * Issue 24 item 12: a mirror that cannot be opened is described by its cause (read-only, locked,
 * damaged, written by a newer fieldops), never with "delete the file" (the mirror holds the
 * outbox: the unsent field records) and never with Knex's text; `fieldops outbox export` saves
 * the unsent records of such a mirror, and `fieldops outbox import` queues them on another
 * laptop, which pushes them exactly once. The real binary, a real server (both databases).
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { CliResult } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { outboxOf, serverEvents, sightingsCsv, syncedCli, writeFile } from '../sync/offline-fixtures.js';
import { makeUnwritable } from '../sync/unwritable.js';

const STACK = /\n\s+at \S/;
const LIBRARY_TEXT = /knex|migrate:unlock|knex_migrations|Acquire connection|`is_locked`|SqliteError/i;

function expectMirrorError(t: Test, result: CliResult, message: RegExp, hint: RegExp) {
  t.equal(result.code, 1, `exit 1 (${result.stderr})`);
  t.match(result.stderr, message);
  t.match(result.stderr, hint);
  t.notMatch(result.stderr, /delete/i, 'no hint to delete the file (it holds the outbox)');
  t.notMatch(result.stderr + result.stdout, LIBRARY_TEXT, 'no library text');
  t.notMatch(result.stderr, STACK);
  t.equal(result.stdout, '', 'nothing on stdout (Knex used to log there, into --json output)');
}

t.test('a mirror that cannot be opened, and its records rescued', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const laptop = await syncedCli(t, s.url);
  const rows = 6;
  t.equal((await laptop.run(['events', 'import', writeFile(laptop, 'sheet.csv', sightingsCsv(rows)), '--type', 'wildlife_sighting'])).code, 0);
  const patrol = await laptop.json(['patrols', 'start', '--type', 'fence_patrol', '--title', 'Fence east']);
  t.equal(patrol.code, 0, patrol.stderr);
  const photo = writeFile(laptop, 'cut.pdf', '%PDF-1.4 the cut in the fence');
  const attached = await laptop.json(['patrols', 'attach', patrol.body.id, photo, '--comment', 'cut']);
  t.equal(attached.code, 0, attached.stderr);
  fs.rmSync(photo);
  const queued = (await outboxOf(laptop)).entries.map((e) => e.id);
  t.equal(queued.length, rows + 2);
  const pristine = fs.readFileSync(laptop.mirror);

  await t.test('read-only: said so; export works on it as it is', async (t) => {
    const unwritable = makeUnwritable(t, laptop.mirror);
    if (!unwritable.how) return void t.pass('skipped', { skip: unwritable.reason });
    t.comment(`made read-only with ${unwritable.how}`);
    for (const args of [['outbox', '--json'], ['status'], ['push']]) {
      expectMirrorError(t, await laptop.run(args), /^error: the mirror .*default\.sqlite3 is read-only \(SQLITE_READONLY\)$/m, /^hint: make it writable again: `chmod u\+w .*` \(and its folder\), `chattr -i .*` .*FIELDOPS_MIRROR.*`fieldops outbox export`/m);
    }
    const out = path.join(laptop.dir, 'rescued.json');
    const exported = await laptop.json(['outbox', 'export', '--out', out]);
    t.equal(exported.code, 0, exported.stderr);
    t.match(exported.body, { file: out, entries: rows + 2, counts: { pending: rows + 2, rejected: 0, conflict: 0 }, server: s.url });
    const document = JSON.parse(fs.readFileSync(out, 'utf8'));
    t.same(document.entries.map((e: any) => e.id), queued, 'every unsent record, in order, with its id');
    const file = document.entries.find((e: any) => e.kind === 'patrol.file');
    t.equal(Buffer.from(file.file.content_base64, 'base64').toString(), '%PDF-1.4 the cut in the fence', 'the attached bytes travel with it');
    t.equal(fs.statSync(out).mode & 0o777, 0o600, 'private: field records');
    const again = await laptop.run(['outbox', 'export', '--out', out]);
    t.equal(again.code, 2);
    t.match(again.stderr, /exists already[\s\S]*hint: choose another --out \(an export is never overwritten\)/);
  });

  await t.test('locked by another process: said so, nothing changed', async (t) => {
    // A writer holding the file (another fieldops in a long sync); the CLI waits its busy timeout first.
    const holder = new Database(laptop.mirror);
    holder.exec('BEGIN IMMEDIATE');
    const result = await laptop.run(['outbox'], { timeoutMs: 60_000 });
    holder.exec('ROLLBACK');
    holder.close();
    expectMirrorError(t, result, /^error: the mirror .* is locked by another process \(SQLITE_BUSY\)$/m, /^hint: another fieldops .* wait for it to finish and try again; nothing was changed$/m);
  });

  await t.test('written by a newer fieldops: said so; export still works', async (t) => {
    const db = new Database(laptop.mirror);
    db.prepare('insert into knex_migrations (name, batch, migration_time) values (?, 99, 0)').run('20290101_0001_from_the_future');
    db.close();
    expectMirrorError(t, await laptop.run(['events', 'list']), /^error: the mirror .* was written by a newer fieldops \(it has 20290101_0001_from_the_future, unknown to this version\)$/m, /^hint: use that newer fieldops .*`fieldops outbox export`/m);
    const exported = await laptop.run(['outbox', 'export', '--out', '-']);
    t.equal(exported.code, 0, exported.stderr);
    t.equal(JSON.parse(exported.stdout).entries.length, rows + 2);
    t.match(exported.stderr, /^exported 8 unsent records \(8 pending\) to standard output/m);
  });

  await t.test('damaged: said so, with the way out that keeps the records', async (t) => {
    const damaged = Buffer.from(pristine);
    // Past the header: SQLite opens the file and finds its pages garbage.
    for (let i = 4096; i < damaged.length; i++) damaged[i] = (i * 131) & 0xff;
    fs.writeFileSync(laptop.mirror, damaged);
    fs.rmSync(`${laptop.mirror}-wal`, { force: true });
    fs.rmSync(`${laptop.mirror}-shm`, { force: true });
    expectMirrorError(t, await laptop.run(['outbox']), /^error: the mirror .* is damaged: it is not a readable SQLite database \(SQLITE_(CORRUPT|NOTADB)\w*\)$/m, /^hint: .*`fieldops outbox export` saves them .*; then move the file aside and keep it \(`mv .* .*\.damaged`\) and run `fieldops sync` .*`fieldops outbox import <file>`/m);
    fs.writeFileSync(laptop.mirror, 'not a database at all '.repeat(300));
    expectMirrorError(t, await laptop.run(['outbox']), /is damaged: it is not a readable SQLite database \(SQLITE_NOTADB\)/, /outbox export/);
    const rescue = await laptop.run(['outbox', 'export', '--out', path.join(laptop.dir, 'nothing.json')]);
    t.equal(rescue.code, 1);
    t.match(rescue.stderr, /error: the mirror .* is damaged/);
    t.notMatch(rescue.stderr, STACK);
  });

  await t.test('imported on another laptop, pushed there exactly once', async (t) => {
    const other = await syncedCli(t, s.url);
    const file = path.join(laptop.dir, 'rescued.json');
    if (!fs.existsSync(file)) fs.writeFileSync(file, (await laptop.run(['outbox', 'export', '--out', '-'])).stdout);
    const imported = await other.json(['outbox', 'import', file]);
    t.equal(imported.code, 0, imported.stderr);
    t.same(imported.body, { file, total: rows + 2, queued: rows + 2, already_queued: 0 });
    const twice = await other.json(['outbox', 'import', file]);
    t.match(twice.body, { queued: 0, already_queued: rows + 2 }, 'importing twice queues nothing');
    t.same((await outboxOf(other)).entries.map((e) => e.id), queued, 'same ids, same order');
    const push = await other.json(['push']);
    t.equal(push.code, 0, push.stderr);
    t.match(push.body, { total: rows + 2, sent: rows + 2 });
    t.equal((await serverEvents(s, token)).length, rows, 'every event once');
    const onServer = await s.json(`/api/v1.0/activity/patrols/${patrol.body.id}`, { token });
    t.same(onServer.body.files.map((f: any) => f.id), [attached.body.id], 'the patrol with its file');

    const wrong = writeFile(other, 'not-an-export.json', JSON.stringify({ format: 'something else' }));
    const refused = await other.run(['outbox', 'import', wrong]);
    t.equal(refused.code, 1);
    t.match(refused.stderr, /error: .*not-an-export\.json is not a fieldops outbox export: no "format": "fieldops-outbox"/);
  });
});
