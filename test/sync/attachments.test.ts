/**
 * The copy of an attached file beside the mirror (sync/outbox/attachments.ts), used by `patrols
 * attach` and `outbox import`: stored whole under its sha256, private, once; each writer through
 * a temporary file of its own, so a temporary name another writer holds is no obstacle (and is
 * never written into); a file-system failure is a ClientFailure that says what and why.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ClientFailure } from '../../sync/errors.js';
import { storeAttachment } from '../../sync/outbox/attachments.js';

const describe = { doing: 'copy photo.jpg beside the mirror', hint: 'check the folder' };
const mode = (file: string) => fs.statSync(file).mode & 0o777;

function folder(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-attachments-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'mirror.sqlite.files');
}

t.test('stored whole under its sha256, private, once', async (t) => {
  const directory = folder(t);
  const bytes = randomBytes(5000);
  const stored = storeAttachment(directory, bytes, describe);
  t.equal(stored, path.join(directory, createHash('sha256').update(bytes).digest('hex')));
  t.same(fs.readFileSync(stored), bytes);
  t.equal(mode(directory), 0o700);
  t.equal(mode(stored), 0o600);
  t.equal(storeAttachment(directory, bytes, describe), stored, 'the same bytes again: the same file');
  t.same(fs.readdirSync(directory), [path.basename(stored)], 'no temporary file left behind');
});

t.test('a temporary name another writer holds is not written into, nor in the way', async (t) => {
  const directory = folder(t);
  const bytes = randomBytes(3000);
  const stored = path.join(directory, createHash('sha256').update(bytes).digest('hex'));
  fs.mkdirSync(directory, { recursive: true });
  // Another fieldops storing the same bytes is writing `<sha256>.tmp` (the name every writer used).
  fs.writeFileSync(`${stored}.tmp`, bytes.subarray(0, 1000));
  // And a leftover whose name cannot be written at all.
  const other = randomBytes(3000);
  const otherStored = path.join(directory, createHash('sha256').update(other).digest('hex'));
  fs.mkdirSync(`${otherStored}.tmp`);

  t.equal(storeAttachment(directory, bytes, describe), stored);
  t.same(fs.readFileSync(stored), bytes, 'stored whole');
  t.same(fs.readFileSync(`${stored}.tmp`), bytes.subarray(0, 1000), 'the other writer\'s file is untouched');
  t.equal(storeAttachment(directory, other, describe), otherStored, 'stored despite the leftover');
  t.same(fs.readFileSync(otherStored), other);
});

t.test('a file-system failure says what could not be done, and why', async (t) => {
  const parent = folder(t);
  fs.mkdirSync(path.dirname(parent), { recursive: true });
  fs.writeFileSync(parent, 'a file where the folder should be');
  const error = (() => {
    try {
      storeAttachment(path.join(parent, 'files'), randomBytes(10), describe);
    } catch (e) {
      return e;
    }
  })();
  t.type(error, ClientFailure);
  t.match(error, { message: 'cannot copy photo.jpg beside the mirror: a part of that path is a regular file, not a folder (ENOTDIR)', hint: 'check the folder' });
});
