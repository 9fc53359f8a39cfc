import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { exifTakenAt, exifTimeFromTags } from '../../server/domain/sensors/exif-time.js';
import { DiskFileStore, relativePathOf } from '../../server/storage/file-store.js';
import { sniffContentType } from '../../server/storage/sniff.js';
import { filesUnder, fixture } from './sensors-support.js';

async function freshStore(t: Test): Promise<DiskFileStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-files-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return DiskFileStore.open(dir);
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

t.test('DiskFileStore: content-addressed, atomic, nothing left behind', async (t) => {
  await t.test('put stores the bytes under their sha256, once', async (t) => {
    const store = await freshStore(t);
    const data = fixture('camera-exif-offset.jpg');
    const stored = await store.put(Readable.from([data.subarray(0, 10), data.subarray(10)]), { maxBytes: 1024 });
    t.same(stored, { sha256: sha(data), size: data.length, path: relativePathOf(sha(data)), contentType: 'image/jpeg' });
    t.same(fs.readFileSync(store.absolutePath(stored.path)), data);
    t.same(await store.put(Readable.from([data]), { maxBytes: 1024 }), stored, 'the same bytes again: the same file');
    t.ok(await store.has(stored.sha256));
    t.same(filesUnder(store.tempDir), []);
    t.same(filesUnder(path.join(store.root, 'sha256')), [stored.path.replace(/^sha256\//, '')]);
  });

  await t.test('more than maxBytes is refused and removed', async (t) => {
    const store = await freshStore(t);
    await t.rejects(store.put(Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 }), { status: 413, code: 'payload_too_large' });
    t.same(filesUnder(store.root), []);
  });

  await t.test('a source that fails mid-stream leaves nothing', async (t) => {
    const store = await freshStore(t);
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1000));
        this.destroy(new Error('connection reset'));
      },
    });
    await t.rejects(store.stage(failing, { maxBytes: 10_000 }), /connection reset/);
    t.same(filesUnder(store.root), []);
  });

  await t.test('a staged file is invisible until committed, and gone when discarded', async (t) => {
    const store = await freshStore(t);
    const staged = await store.stage(Readable.from([Buffer.from('%PDF-1.7 report')]), { maxBytes: 100 });
    t.equal(staged.contentType, 'application/pdf');
    t.ok(fs.existsSync(staged.tempPath));
    t.notOk(await store.has(staged.sha256));
    await staged.discard();
    t.same(filesUnder(store.root), []);
    const kept = await store.stage(Readable.from([Buffer.from('%PDF-1.7 report')]), { maxBytes: 100 });
    const stored = await kept.commit();
    await kept.discard();
    t.ok(fs.existsSync(store.absolutePath(stored.path)), 'discard after commit keeps the file');
  });

  await t.test('open() removes stale temporary files only', async (t) => {
    const store = await freshStore(t);
    fs.mkdirSync(store.tempDir, { recursive: true });
    const stale = path.join(store.tempDir, 'stale.part');
    const fresh = path.join(store.tempDir, 'fresh.part');
    fs.writeFileSync(stale, 'x');
    fs.writeFileSync(fresh, 'y');
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(stale, old, old);
    await DiskFileStore.open(store.root);
    t.same(filesUnder(store.tempDir), ['fresh.part']);
  });

  await t.test('paths stay inside the root', async (t) => {
    const store = await freshStore(t);
    t.throws(() => store.absolutePath('../etc/passwd'));
    t.throws(() => relativePathOf('../../x'));
  });
});

t.test('content types are sniffed from the bytes', async (t) => {
  const cases: Array<[string, number[] | string, string]> = [
    ['jpeg', [0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
    ['png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0], 'image/png'],
    ['gif', 'GIF89a....', 'image/gif'],
    ['webp', 'RIFF\0\0\0\0WEBPVP8 ', 'image/webp'],
    ['heic', '\0\0\0\x18ftypheic\0\0\0\0', 'image/heic'],
    ['mp4', '\0\0\0\x18ftypisom\0\0\0\0', 'video/mp4'],
    ['pdf', '%PDF-1.4', 'application/pdf'],
    ['zip', [0x50, 0x4b, 0x03, 0x04], 'application/zip'],
    ['text', 'hello world', 'application/octet-stream'],
    ['empty', [], 'application/octet-stream'],
  ];
  for (const [name, bytes, type] of cases) {
    t.equal(sniffContentType(typeof bytes === 'string' ? Buffer.from(bytes, 'binary') : Uint8Array.from(bytes)), type, name);
  }
});

t.test('EXIF capture time', async (t) => {
  t.equal(await exifTakenAt(fixture('camera-exif-offset.jpg')), Date.parse('2026-11-19T05:30:00.250Z'), 'OffsetTimeOriginal applied');
  t.equal(await exifTakenAt(fixture('camera-exif-local.jpg')), Date.parse('2026-11-18T22:15:10Z'), 'no offset: UTC');
  t.equal(await exifTakenAt(fixture('camera-no-exif.jpg')), null);
  t.equal(await exifTakenAt(Buffer.from('not an image at all')), null, 'unreadable files have no time');
  const cases: Array<[Record<string, unknown> | undefined, number | null]> = [
    [{ DateTimeOriginal: '2026:01:02 03:04:05', OffsetTimeOriginal: '-05:30' }, Date.parse('2026-01-02T08:34:05Z')],
    [{ DateTimeOriginal: '2026:01:02 03:04:05', OffsetTimeOriginal: 'garbage' }, Date.parse('2026-01-02T03:04:05Z')],
    [{ DateTimeOriginal: '2026:02:30 03:04:05' }, null],
    [{ DateTimeOriginal: '0000:00:00 00:00:00' }, null],
    [{ DateTimeOriginal: '    :  :     :  :  ' }, null],
    [{ DateTimeOriginal: 20260102 }, null],
    [undefined, null],
  ];
  for (const [tags, expected] of cases) t.equal(exifTimeFromTags(tags), expected, JSON.stringify(tags));
});
