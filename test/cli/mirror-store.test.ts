/** The mirror store (Knex over SQLite) against the conformance suite, and the mirror's migrations. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { KnexMirrorStore } from '../../sync/mirror/knex-store.js';
import { openMirrorDatabase, rollbackMirror } from '../../sync/mirror/open.js';
import { mirrorStoreConformance } from '../helpers/mirror-conformance.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-mirror-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'nested', 'profile.sqlite3');
const open = async (filename: string) => new KnexMirrorStore((await openMirrorDatabase(filename, { create: true }))!);

mirrorStoreConformance(t, 'Knex + SQLite file', { open: () => open(file), reopen: () => open(file) });
mirrorStoreConformance(t, 'Knex + SQLite in memory', { open: () => open(':memory:') });

t.test('opening a mirror that does not exist creates nothing unless asked', async (t) => {
  const missing = path.join(dir, 'missing.sqlite3');
  t.equal(await openMirrorDatabase(missing, { create: false }), null);
  t.notOk(fs.existsSync(missing));
});

t.test('the mirror migrations run up and down', async (t) => {
  const knex = (await openMirrorDatabase(path.join(dir, 'migrations.sqlite3'), { create: true }))!;
  t.teardown(() => knex.destroy());
  for (const table of ['mirror_meta', 'checkpoints', 'patrol_types', 'event_types', 'choices', 'documents']) t.ok(await knex.schema.hasTable(table), `${table} created`);
  t.equal((await knex.raw('PRAGMA journal_mode'))[0].journal_mode, 'wal', 'WAL: readers never block the sync writer');
  await rollbackMirror(knex);
  t.notOk(await knex.schema.hasTable('patrol_types'), 'down drops the tables');
});

t.test('a file that is not a mirror: a clear error with a way out', async (t) => {
  const bogus = path.join(dir, 'bogus.sqlite3');
  fs.writeFileSync(bogus, 'this is not a database, just text of some length '.repeat(100));
  const error = await openMirrorDatabase(bogus, { create: false }).then(() => null, (e: Error & { hint?: string }) => e);
  t.match(error, { message: /the mirror .*bogus\.sqlite3 is damaged: it is not a readable SQLite database \(SQLITE_NOTADB\)/, hint: /`fieldops outbox export`.*move the file aside/ });
  t.notMatch(error?.hint, /delete the file/, 'issue 24: no hint deletes the outbox');
});
