import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { Test } from 'tap';
import { type FileStore, readFailure, relativePathOf } from '../../server/storage/file-store.js';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const bytesOf = async (stream: Readable) => Buffer.concat(await stream.toArray());
const tempFiles = (store: FileStore) => (fs.existsSync(store.tempDir) ? fs.readdirSync(store.tempDir) : []);

/**
 * The file store contract (server/storage/file-store.ts), run against every implementation:
 * content addressing, staging, size limits, nothing visible or left behind on failure, ranges,
 * a file larger than one multipart part streamed both ways, removal and listing.
 */
export async function fileStoreConformance(t: Test, open: (t: Test) => Promise<FileStore>): Promise<void> {
  await t.test('put: stored under its sha256, once; read back byte for byte', async (t) => {
    const store = await open(t);
    const data = randomBytes(5000);
    const stored = await store.put(Readable.from([data.subarray(0, 100), data.subarray(100)]), { maxBytes: 10_000 });
    t.same(stored, { sha256: sha(data), size: data.length, path: relativePathOf(sha(data)), contentType: 'application/octet-stream' });
    t.same(await bytesOf(store.openRead(stored.path)), data);
    t.same(await store.put(Readable.from([data]), { maxBytes: 10_000 }), stored, 'the same bytes again: the same file');
    t.ok(await store.has(stored.sha256));
    t.notOk(await store.has(sha(Buffer.from('never stored'))));
    t.same(tempFiles(store), [], 'nothing staged is left');
  });

  await t.test('stage: readable at tempPath, invisible until commit, discard after commit harmless', async (t) => {
    const store = await open(t);
    const data = Buffer.from('%PDF-1.4 staged bytes');
    const staged = await store.stage(Readable.from([data]), { maxBytes: 1000 });
    t.same(fs.readFileSync(staged.tempPath), data);
    t.equal(staged.contentType, 'application/pdf', 'sniffed');
    t.notOk(await store.has(staged.sha256), 'not in the store before commit');
    const stored = await staged.commit();
    t.same(await staged.commit(), stored, 'commit is idempotent');
    await staged.discard();
    t.ok(await store.has(staged.sha256));
    t.same(await bytesOf(store.openRead(stored.path)), data);
    const dropped = await store.stage(Readable.from([Buffer.from('dropped')]), { maxBytes: 1000 });
    await dropped.discard();
    t.notOk(await store.has(dropped.sha256), 'a discarded upload is not stored');
    t.same(tempFiles(store), []);
  });

  await t.test('over the limit: 413, nothing stored, nothing left', async (t) => {
    const store = await open(t);
    const data = Buffer.alloc(1200, 1);
    await t.rejects(store.put(Readable.from([data.subarray(0, 600), data.subarray(600)]), { maxBytes: 1000 }), { status: 413, code: 'payload_too_large' });
    t.notOk(await store.has(sha(data)));
    t.same(tempFiles(store), []);
  });

  await t.test('a source failing mid-stream: nothing visible, nothing left', async (t) => {
    const store = await open(t);
    const source = new Readable({
      read() {
        this.push(Buffer.alloc(1000, 2));
        this.destroy(new Error('connection reset'));
      },
    });
    await t.rejects(store.put(source, { maxBytes: 10_000 }), { message: /connection reset/ });
    t.notOk(await store.has(sha(Buffer.alloc(1000, 2))));
    t.same(tempFiles(store), []);
  });

  await t.test('ranges: exactly the bytes asked for', async (t) => {
    const store = await open(t);
    const data = Buffer.from('0123456789abcdefghij');
    const stored = await store.put(Readable.from([data]), { maxBytes: 100 });
    t.equal(await text(store.openRead(stored.path, { start: 3, end: 7 })), '34567');
    t.equal(await text(store.openRead(stored.path, { start: 19, end: 19 })), 'j');
  });

  await t.test('a file larger than one multipart part, streamed up and down', async (t) => {
    const store = await open(t);
    const data = randomBytes(9 * 1024 * 1024 + 123);
    const chunks = Array.from({ length: Math.ceil(data.length / 65536) }, (_, i) => data.subarray(i * 65536, (i + 1) * 65536));
    const stored = await store.put(Readable.from(chunks), { maxBytes: 20 * 1024 * 1024 });
    t.equal(stored.size, data.length);
    const back = await bytesOf(store.openRead(stored.path));
    t.equal(sha(back), sha(data), 'byte for byte');
  });

  await t.test('remove: those bytes gone, others kept, idempotent; list names what is stored; stored again after', async (t) => {
    const store = await open(t);
    const listed = async () => {
      const files = [];
      for await (const file of store.list()) files.push(file);
      return files.sort((x, y) => x.sha256.localeCompare(y.sha256));
    };
    t.same(await listed(), [], 'an empty store lists nothing');
    const one = randomBytes(300);
    const other = randomBytes(400);
    const first = await store.put(Readable.from([one]), { maxBytes: 1000 });
    await store.put(Readable.from([other]), { maxBytes: 1000 });
    const files = await listed();
    t.same(files.map((file) => file.sha256), [sha(one), sha(other)].sort());
    t.ok(files.every((file) => Number.isFinite(file.modifiedAt) && file.modifiedAt > 0), 'each with when it was written');
    await store.remove(first.sha256);
    t.notOk(await store.has(first.sha256), 'removed');
    await t.rejects(bytesOf(store.openRead(first.path)), 'its reads fail');
    t.ok(await store.has(sha(other)), 'other bytes stay');
    t.same((await listed()).map((file) => file.sha256), [sha(other)]);
    await store.remove(first.sha256);
    t.pass('removing what is not there succeeds');
    t.same(await store.put(Readable.from([one]), { maxBytes: 1000 }), first, 'the same bytes stored again');
    t.same(await bytesOf(store.openRead(first.path)), one, 'and read back');
  });

  await t.test('a missing file errors the read stream, as missing (downloads answer 404 for it)', async (t) => {
    const store = await open(t);
    const failure = await bytesOf(store.openRead(relativePathOf(sha(Buffer.from('absent'))))).then(() => null, (error: unknown) => error);
    t.ok(failure, 'the read fails');
    t.equal(readFailure(failure), 'missing');
    t.equal(readFailure(new Error('connect ECONNREFUSED')), 'unavailable', 'anything else may pass');
  });
}
