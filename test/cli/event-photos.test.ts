/**
 * Event photos offline (issue 26 §5), with the real binary and a real server (both databases):
 * `events new --file` queues the create and one `event.file` per file in ONE outbox transaction
 * (a failure inside it queues nothing and leaves no staged copy); `events attach` to an event
 * recorded here (after its create) and to one pulled from the server (no dependency); the size
 * limits (the server's advertised one, stored in the mirror, and the local maximum); `outbox
 * drop` of a file entry removes its staged copy unless another entry uses the same bytes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { startTestServer } from '../helpers/server.js';
import { seedCatalog } from '../helpers/sync-seed.js';
import { EVENTS, syncedCli } from '../sync/offline-fixtures.js';

const DETAILS = JSON.stringify({ species: 'elephant', notes: 'herd at the waterhole' });
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

interface Row {
  id: string;
  kind: string;
  target: string;
  depends_on: string | null;
  body: string;
  recorded_at: string;
  status: string;
}

t.test('event photos queued offline', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await seedCatalog(s, token);
  const cli = await syncedCli(t, s.url);
  const files = `${cli.mirror}.files`;
  const rows = (): Row[] => {
    const db = new Database(cli.mirror, { readonly: true });
    try {
      return db.prepare('select id, kind, target, depends_on, body, recorded_at, status from outbox order by seq').all() as Row[];
    } finally {
      db.close();
    }
  };
  const write = (name: string, content: Buffer | string) => {
    const file = path.join(cli.dir, name);
    fs.writeFileSync(file, content);
    return file;
  };
  const staged = () => (fs.existsSync(files) ? fs.readdirSync(files).sort() : []);
  const photoA = Buffer.alloc(3000, 'a');
  const photoB = Buffer.alloc(5000, 'b');
  const a = write('herd.jpg', photoA);
  const b = write('calf.jpg', photoB);

  await t.test('events new --file --file: the create and two file entries, one transaction', async (t) => {
    const made = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS, '--file', a, '--file', b, '--comment', 'the herd', '--comment', 'a calf']);
    t.equal(made.code, 0, made.stderr);
    t.equal(made.body.files.length, 2);
    const all = rows();
    t.same(all.map((r) => r.kind), ['event.create', 'event.file', 'event.file']);
    const [create, first, second] = all as [Row, Row, Row];
    t.equal(create.id, made.body.id);
    for (const [row, bytes, name, comment] of [[first, photoA, 'herd.jpg', 'the herd'], [second, photoB, 'calf.jpg', 'a calf']] as const) {
      t.equal(row.target, create.id, 'attached to the event');
      t.equal(row.depends_on, create.id, 'after its create');
      const body = JSON.parse(row.body);
      t.match(body, { id: row.id, sha256: sha(bytes), size: bytes.length, filename: name, comment });
      t.equal(body.stored, path.join(files, sha(bytes)), 'staged beside the mirror under its sha256');
      t.same(fs.readFileSync(body.stored), bytes);
    }
    t.equal(new Set(all.map((r) => r.recorded_at)).size, 1, 'recorded in one enqueue');
  });

  await t.test('a failure inside the transaction queues nothing, and the new copies go', async (t) => {
    const before = rows().length;
    const third = write('third.jpg', Buffer.alloc(700, 'c'));
    // The second file entry of this event fails inside the insert: the create must not stay queued either.
    const db = new Database(cli.mirror);
    db.exec(`create trigger refuse_file before insert on outbox when new.kind = 'event.file' and new.body like '%third.jpg%' begin select raise(abort, 'refused by the test'); end`);
    db.close();
    const failed = await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS, '--file', a, '--file', third]);
    const undo = new Database(cli.mirror);
    undo.exec('drop trigger refuse_file');
    undo.close();
    t.not(failed.code, 0);
    t.equal(rows().length, before, 'neither the create nor the first file was queued');
    t.notOk(staged().includes(sha(Buffer.alloc(700, 'c'))), 'the copy made for it is removed');
    t.ok(staged().includes(sha(photoA)), 'a copy a queued entry uses is kept');

    const missing = await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS, '--file', a, '--file', path.join(cli.dir, 'nope.jpg')]);
    t.equal(missing.code, 2);
    t.match(missing.stderr, /^error: cannot read .*nope\.jpg\nhint: check the path/m);
    t.equal(rows().length, before, 'nothing queued');

    const comments = await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS, '--file', a, '--comment', 'x', '--comment', 'y', '--comment', 'z']);
    t.equal(comments.code, 2);
    t.match(comments.stderr, /error: 3 comments for 1 files\nhint: give one --comment/);
  });

  await t.test('events attach to a queued event: after its create', async (t) => {
    const made = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS]);
    const photo = write('later.jpg', 'taken later');
    const attached = await cli.json(['events', 'attach', made.body.id.slice(0, 8), photo, '--comment', 'later']);
    t.equal(attached.code, 0, attached.stderr);
    t.equal(attached.body.event, made.body.id);
    const row = rows().find((r) => r.id === attached.body.id)!;
    t.match(row, { kind: 'event.file', target: made.body.id, depends_on: made.body.id });
    t.match(JSON.parse(row.body), { filename: 'later.jpg', comment: 'later', size: 11, sha256: sha('taken later') });
  });

  await t.test('events attach to a pulled event: no dependency', async (t) => {
    const id = '0f8e2a2c-6c1b-4b8e-9a57-3f0f3c1d2e4f';
    const created = await s.json(EVENTS, send('POST', { id, event_type: 'wildlife_sighting', time: '2026-11-20T09:00:00Z', event_details: { species: 'lion' } }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    const pulled = await cli.run(['pull']);
    t.equal(pulled.code, 0, pulled.stderr);
    const photo = write('pride.jpg', 'a pride of lions');
    const attached = await cli.json(['events', 'attach', id, photo]);
    t.equal(attached.code, 0, attached.stderr);
    t.match(rows().find((r) => r.id === attached.body.id), { kind: 'event.file', target: id, depends_on: null });
    const unknown = await cli.run(['events', 'attach', 'ffffffff', photo]);
    t.equal(unknown.code, 2);
    t.match(unknown.stderr, /error: no event "ffffffff" on this laptop\nhint: `fieldops events list`/);
  });

  await t.test('size limits: the server\'s advertised one (stored in the mirror) and the local maximum', async (t) => {
    const made = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS]);
    const before = rows().length;
    const db = new Database(cli.mirror);
    db.prepare(`insert into mirror_identity (key, value) values ('upload_max_bytes', '4096') on conflict(key) do update set value = excluded.value`).run();
    db.close();
    const big = write('big.jpg', Buffer.alloc(5000, 'z'));
    const refused = await cli.run(['events', 'attach', made.body.id, big]);
    t.equal(refused.code, 2);
    t.match(refused.stderr, /error: .*big\.jpg is 4\.9 KiB, over the server's upload limit \(4 KiB\)\nhint: attach a smaller file/);
    const small = await cli.json(['events', 'attach', made.body.id, write('small.jpg', Buffer.alloc(4096, 's'))]);
    t.equal(small.code, 0, 'at the limit: accepted');
    t.equal(rows().length, before + 1);
    t.notOk(staged().includes(sha(Buffer.alloc(5000, 'z'))), 'nothing staged for the refused file');

    const undo = new Database(cli.mirror);
    undo.prepare(`delete from mirror_identity where key = 'upload_max_bytes'`).run();
    undo.close();
    // A sparse file: 51 MiB on paper, no disk used; refused before a byte is read.
    const huge = path.join(cli.dir, 'huge.mov');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, 51 * 1024 * 1024);
    const tooBig = await cli.run(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS, '--file', huge]);
    t.equal(tooBig.code, 2);
    t.match(tooBig.stderr, /error: .*huge\.mov is 51 MiB, over the largest file fieldops attaches \(50 MiB\)/);
    t.equal(rows().length, before + 1, 'the event was not queued without its file');
  });

  await t.test('patrols attach takes the same path', async (t) => {
    const started = await cli.json(['patrols', 'start', '--type', 'fence_patrol', '--title', 'Fence']);
    const photo = write('fence.jpg', 'fence cut');
    const attached = await cli.json(['patrols', 'attach', started.body.id, photo]);
    t.equal(attached.code, 0, attached.stderr);
    const row = rows().find((r) => r.id === attached.body.id)!;
    t.match(row, { kind: 'patrol.file', target: started.body.id, depends_on: started.body.id });
    t.match(JSON.parse(row.body), { sha256: sha('fence cut'), size: 9, filename: 'fence.jpg' });
  });

  await t.test('push: uploaded, attached to the event created offline, the staged copy removed', async (t) => {
    const made = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS, '--file', write('pushed.jpg', Buffer.alloc(70_000, 'p')), '--comment', 'pushed']);
    t.equal(made.code, 0, made.stderr);
    const copy = path.join(files, sha(Buffer.alloc(70_000, 'p')));
    t.ok(fs.existsSync(copy));
    const pushed = await cli.json(['push']);
    t.equal(pushed.code, 0, pushed.stderr);
    const event = await s.json(`${EVENTS}/${made.body.id}`, { token });
    t.equal(event.status, 200);
    t.match(event.body.files, [{ id: made.body.files[0].id, comment: 'pushed' }], 'the file is on the event');
    t.notOk(fs.existsSync(copy), 'the staged copy is gone once the server confirmed its sha256');
    t.equal(rows().find((r) => r.id === made.body.files[0].id)?.status, 'sent');
  });

  await t.test('outbox drop of a file entry removes its copy unless another entry uses it', async (t) => {
    const made = await cli.json(['events', 'new', '--type', 'wildlife_sighting', '--details', DETAILS]);
    const photo = write('twice.jpg', 'the same bytes');
    const one = await cli.json(['events', 'attach', made.body.id, photo]);
    const two = await cli.json(['events', 'attach', made.body.id, photo]);
    const copy = path.join(files, sha('the same bytes'));
    t.equal((await cli.run(['outbox', 'drop', one.body.id])).code, 0);
    t.ok(fs.existsSync(copy), 'kept: the other entry still needs it');
    t.equal((await cli.run(['outbox', 'drop', two.body.id])).code, 0);
    t.notOk(fs.existsSync(copy), 'removed with the last entry that used it');
  });
});
