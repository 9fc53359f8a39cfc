/**
 * A staged copy beside the mirror is removed once its file entry is sent, even when the push
 * that sent it stopped before removing it (a kill between storing the answer and the removal,
 * a file sent one by one, an answer naming no sha256): the next push removes it first thing.
 * A copy another unsent entry still uses stays.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { OutboxStore } from '../../sync/outbox/store.js';
import { runPush } from '../../sync/push/run-push.js';
import type { Transport } from '../../sync/transport.js';

t.test('sent file entries lose their staged copy at the next push', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'staged-release-'));
  const knex = (await openMirrorDatabase(path.join(dir, 'mirror.sqlite3'), { create: true }))!;
  t.teardown(async () => {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const outbox = new OutboxStore(knex);
  const staged = (name: string) => {
    const file = path.join(dir, 'mirror.sqlite3.files', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, name);
    return file;
  };
  const sha = (c: string) => c.repeat(64);
  const sentCopy = staged(sha('a'));
  const sharedCopy = staged(sha('b'));
  const body = (stored: string, digest: string) => ({ id: `f-${digest.slice(0, 4)}`, stored, sha256: digest, size: 10, filename: 'photo.jpg', comment: '' });
  await outbox.enqueue([
    { id: 'e-sent', kind: 'event.file', target: 'event-1', body: body(sentCopy, sha('a')) },
    { id: 'e-shared-sent', kind: 'event.file', target: 'event-1', body: body(sharedCopy, sha('b')) },
    { id: 'e-shared-pending', kind: 'event.file', target: 'event-2', body: body(sharedCopy, sha('b')), dependsOn: 'missing-create' },
  ]);
  await outbox.settle([{ id: 'e-sent', status: 'sent' }, { id: 'e-shared-sent', status: 'sent' }]);
  let requests = 0;
  const transport: Transport = async () => {
    requests++;
    throw new Error('no request is expected');
  };
  await runPush({ transport, server: 'http://127.0.0.1:9', outbox }).catch(() => undefined);
  t.notOk(fs.existsSync(sentCopy), 'the sent entry\'s copy is removed');
  t.ok(fs.existsSync(sharedCopy), 'a copy an unsent entry still uses stays');
  const rows = await knex('outbox').whereIn('id', ['e-sent', 'e-shared-sent']).orderBy('id').select('id', 'upload_state');
  t.same(rows.map((r: { upload_state: string | null }) => r.upload_state), ['attached', 'attached'], 'marked, so the next push does not look at them again');
  t.comment(`requests attempted: ${requests}`);
});
