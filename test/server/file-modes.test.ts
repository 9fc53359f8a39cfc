import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openDatabase } from '../../server/db/knex.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

// Issue 13 item 13: what the server writes is 0600 (files) / 0700 (directories) whatever the
// umask. The umask is opened wide for the whole file so that only explicit modes can pass.
process.umask(0);
t.teardown(() => void process.umask(0o022));

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const octal = (value: number) => value.toString(8).padStart(3, '0');

function walk(root: string): { dirs: string[]; files: string[] } {
  const dirs = [root];
  const files: string[] = [];
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath ?? '', entry.name);
    if (entry.isDirectory()) dirs.push(full);
    else files.push(full);
  }
  return { dirs, files };
}

t.test('a SQLite database, its WAL and shared memory, and new parent directories are private', { skip: dialect !== 'sqlite' && 'SQLite only' }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-modes-'));
  t.teardown(() => fs.rmSync(base, { recursive: true, force: true }));
  const filename = path.join(base, 'new', 'data', 'fieldops.sqlite3');
  const database = openDatabase({ dialect: 'sqlite', filename, synchronous: 'NORMAL' });
  await database.knex.schema.createTable('probe', (table) => table.integer('n'));
  await database.knex('probe').insert({ n: 1 });
  try {
    for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
      t.ok(fs.existsSync(file), `${path.basename(file)} exists`);
      t.equal(octal(mode(file)), '600', `${path.basename(file)} is 0600`);
    }
    t.equal(octal(mode(path.join(base, 'new'))), '700', 'a parent directory created for it is 0700');
    t.equal(octal(mode(path.dirname(filename))), '700', 'its directory is 0700');
  } finally {
    await database.close();
  }
});

t.test(`stored uploads and the data directory are private (${dialect})`, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-modes-'));
  t.teardown(() => fs.rmSync(base, { recursive: true, force: true }));
  const dataDir = path.join(base, 'data');
  const s = await startTestServer(t, { env: { FIELDOPS_DATA_DIR: dataDir } });
  if (!s) return;
  const token = (await s.login()).access_token;
  const patrol = (await s.json('/api/v1.0/activity/patrols', send('POST', { title: 'Modes' }, token))).body;
  const form = new FormData();
  form.append('filecontent.file', new Blob([Buffer.from('private bytes\n')]), 'notes.txt');
  const created = await s.json(`/api/v1.0/activity/patrols/${patrol.id}/files`, { method: 'POST', body: form, token });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const { dirs, files } = walk(dataDir);
  t.ok(files.some((file) => file.includes(`${path.sep}sha256${path.sep}`)), 'the upload is stored under the data directory');
  for (const dir of dirs) t.equal(octal(mode(dir)), '700', `${path.relative(base, dir)} is 0700`);
  for (const file of files) t.equal(octal(mode(file)), '600', `${path.relative(base, file)} is 0600`);
});
