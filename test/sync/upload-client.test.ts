/**
 * The tus upload client (sync/push/uploads.ts) against the real tus endpoint of a real server
 * (both databases), through a link proxy that counts uplink bytes and cuts the link mid-PATCH:
 * - a whole upload: OPTIONS stores the server's limit in the mirror, the sha256 comes back;
 * - cuts mid-PATCH: resumed from the server's offset (HEAD first), uplink at most the file plus
 *   one chunk per cut;
 * - a "kill" (the client gives up, a new one starts): the Location and acknowledged offset are
 *   in the outbox row, and the new run starts with a HEAD, never a second creation;
 * - a creation whose answer was lost: asked again without a body, the same upload comes back;
 * - a checksum mismatch (460) and a file over the advertised limit are refusals of the entry;
 * - the staged copy is released only on a matching sha256 and when no other entry needs it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import t, { type Test } from 'tap';
import { startLinkProxy, type LinkProxy } from '../../bench/lib/link-proxy.js';
import type { Transport } from '../../sync/http.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { releaseStagedFile, stageFile, type StagedFileBody } from '../../sync/outbox/attachments.js';
import { readUpload, readUploadMaxBytes } from '../../sync/outbox/uploads-store.js';
import { UploadRefused, uploadFile, type UploadDeps } from '../../sync/push/uploads.js';
import { withRetries } from '../../sync/retry.js';
import { createUndiciTransport } from '../../sync/transport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MiB = 1024 * 1024;
const CHUNK = 2 * MiB;
/** Request lines and headers of one exchange, generously. */
const OVERHEAD = 4096;

interface Rig {
  knex: Knex;
  dir: string;
  proxy: LinkProxy;
  /** A fresh client (as a new process would have): its own connections, its own log of methods. */
  client(options?: Partial<UploadDeps>): { deps: UploadDeps; methods: string[] };
  /** A file entry queued in the mirror with a staged copy of `bytes`. */
  entry(bytes: Buffer, options?: { sha256?: string }): Promise<{ id: string; kind: 'event.file'; body: StagedFileBody }>;
}

async function rig(t: Test, s: TestServer): Promise<Rig> {
  const token = (await s.login()).access_token;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-upload-'));
  const mirror = path.join(dir, 'mirror.sqlite3');
  const knex = (await openMirrorDatabase(mirror, { create: true }))!;
  const proxy = await startLinkProxy({ host: '127.0.0.1', port: Number(new URL(s.url).port) });
  const closers: Array<() => Promise<void>> = [];
  t.teardown(async () => {
    for (const close of closers) await close();
    await proxy.close();
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    knex,
    dir,
    proxy,
    client(options = {}) {
      const undici = createUndiciTransport({ timeoutMs: 20_000 });
      closers.push(() => undici.close());
      const methods: string[] = [];
      const retrying = withRetries(undici, { attempts: 3, baseDelayMs: 10 });
      const transport: Transport = (request) => {
        methods.push(request.method);
        return retrying({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });
      };
      return { methods, deps: { transport, server: proxy.origin, knex, chunkBytes: CHUNK, retryDelayMs: 10, ...options } };
    },
    async entry(bytes, options = {}) {
      const source = path.join(dir, `${randomUUID()}.jpg`);
      fs.writeFileSync(source, bytes);
      const copy = stageFile(`${mirror}.files`, source, { doing: 'stage', hint: 'test' });
      const id = randomUUID();
      const body: StagedFileBody = { id, stored: copy.stored, sha256: options.sha256 ?? copy.sha256, size: copy.size, filename: 'photo.jpg', comment: '' };
      await knex('outbox').insert({ id, kind: 'event.file', target: randomUUID(), body: JSON.stringify(body), status: 'pending', recorded_at: new Date().toISOString() });
      return { id, kind: 'event.file', body };
    },
  };
}

t.test('the tus client against the real server', async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const r = await rig(t, s);

  await t.test('a whole upload: the limit stored, the sha256 confirmed, the row says stored', async (t) => {
    const bytes = randomBytes(5 * MiB + 123);
    const entry = await r.entry(bytes);
    const { deps, methods } = r.client();
    const before = r.proxy.bytesUp;
    const done = await uploadFile(entry, deps);
    t.equal(done.sha256, entry.body.sha256);
    t.match(done.upload, /^[0-9a-f]{32}$/);
    t.same(methods, ['OPTIONS', 'POST', 'PATCH', 'PATCH'], 'creation with the first chunk, then the rest in chunks');
    t.ok(r.proxy.bytesUp - before <= bytes.length + methods.length * OVERHEAD, `uplink ${r.proxy.bytesUp - before} for ${bytes.length}`);
    t.match(await readUpload(r.knex, entry.id), { state: 'stored', offset: bytes.length, size: bytes.length, sha256: entry.body.sha256, url: done.url });
    t.equal(await readUploadMaxBytes(r.knex), 50 * MiB, 'Tus-Max-Size stored in mirror_identity');
    const again = r.client();
    t.same(await uploadFile(entry, again.deps), done, 'a stored upload is not sent again');
    t.same(again.methods, [], 'not even asked');
  });

  await t.test('a file smaller than a chunk: created whole in one POST, never sent twice', async (t) => {
    const bytes = randomBytes(300_000);
    const entry = await r.entry(bytes);
    const { deps, methods } = r.client();
    const before = r.proxy.bytesUp;
    const done = await uploadFile(entry, deps);
    t.equal(done.sha256, entry.body.sha256);
    t.notOk(methods.includes('PATCH'), 'no PATCH needed');
    t.ok(r.proxy.bytesUp - before <= bytes.length + methods.length * OVERHEAD, `uplink ${r.proxy.bytesUp - before} for ${bytes.length} (${methods.join(' ')})`);
    t.match(await readUpload(r.knex, entry.id), { state: 'stored', offset: bytes.length });
  });

  await t.test('cut twice mid-PATCH: resumed from the server\'s offset, one chunk lost per cut at most', async (t) => {
    const bytes = randomBytes(7 * MiB);
    const entry = await r.entry(bytes);
    const { deps, methods } = r.client();
    const offsets: number[] = [];
    const start = r.proxy.bytesUp;
    const cutsBefore = r.proxy.cuts;
    r.proxy.cutAfterUp(start + 3 * MiB);
    let armedSecond = false;
    const done = await uploadFile(entry, {
      ...deps,
      onProgress: ({ offset }) => {
        offsets.push(offset);
        // The second cut, once the first was resumed: in the middle of a later PATCH.
        if (!armedSecond && r.proxy.cuts > cutsBefore) {
          armedSecond = true;
          r.proxy.cutAfterUp(r.proxy.bytesUp + CHUNK + MiB / 2);
        }
      },
    });
    t.equal(r.proxy.cuts - cutsBefore, 2, 'the link was cut twice');
    t.equal(done.sha256, entry.body.sha256, 'the server hashed the whole file to the same sha256');
    const heads = methods.flatMap((m, i) => (m === 'HEAD' ? [i] : []));
    t.equal(heads.length, 2, 'one HEAD per cut');
    for (const i of heads) t.equal(methods[i - 1], 'PATCH', 'after the cut PATCH, the server is asked first');
    t.equal(methods.filter((m) => m === 'POST').length, 1, 'created once');
    t.ok(offsets.some((o) => o % CHUNK !== 0 && o < bytes.length), 'tus kept bytes of a cut chunk (resumed mid-chunk)');
    const up = r.proxy.bytesUp - start;
    t.ok(up <= bytes.length + 2 * CHUNK + methods.length * OVERHEAD, `uplink ${up} <= size + one chunk per cut`);
    t.match(await readUpload(r.knex, entry.id), { state: 'stored', offset: bytes.length });
  });

  await t.test('killed mid-upload: the Location and offset are stored; the next run starts with a HEAD', async (t) => {
    const bytes = randomBytes(7 * MiB);
    const entry = await r.entry(bytes);
    const first = r.client({ attempts: 1 });
    r.proxy.cutAfterUp(r.proxy.bytesUp + 5 * MiB);
    await t.rejects(uploadFile(entry, first.deps), { name: 'TransportError' }, 'the first run dies at the cut');
    const stored = (await readUpload(r.knex, entry.id))!;
    t.match(stored, { state: 'receiving', size: bytes.length, sha256: entry.body.sha256 });
    t.ok(stored.url, 'the Location was stored');
    t.equal(stored.offset, 2 * CHUNK, 'the last acknowledged offset was stored (two chunks)');

    const second = r.client();
    const resumedAt: number[] = [];
    const start = r.proxy.bytesUp;
    const done = await uploadFile(entry, { ...second.deps, onProgress: ({ offset }) => resumedAt.push(offset) });
    t.equal(second.methods[0], 'HEAD', 'the server is asked first');
    t.notOk(second.methods.includes('POST'), 'no second creation');
    t.ok(resumedAt[0]! >= stored.offset, `resumed at the server's offset ${resumedAt[0]} (stored hint ${stored.offset})`);
    t.ok(r.proxy.bytesUp - start <= bytes.length - resumedAt[0]! + second.methods.length * OVERHEAD, 'only the rest was sent');
    t.equal(done.url, stored.url);
    t.equal(done.sha256, entry.body.sha256);
  });

  await t.test('a creation whose answer was lost: asked again without a body, the same upload', async (t) => {
    const bytes = randomBytes(3 * MiB);
    const entry = await r.entry(bytes);
    const first = r.client({ attempts: 1 });
    r.proxy.cutAfterUp(r.proxy.bytesUp + CHUNK + MiB / 2);
    await t.rejects(uploadFile(entry, first.deps));
    const created = (await readUpload(r.knex, entry.id))!;
    // As if killed after the POST reached the server and before its answer was stored.
    await r.knex('outbox').where({ id: entry.id }).update({ upload_url: null, upload_offset: null, upload_state: 'creating' });
    const second = r.client();
    const start = r.proxy.bytesUp;
    const seen: number[] = [];
    const done = await uploadFile(entry, { ...second.deps, onProgress: ({ offset }) => seen.push(offset) });
    t.equal(second.methods[0], 'OPTIONS');
    t.equal(second.methods[1], 'POST');
    t.equal(done.url, created.url, 'the server answered the same upload for the same Idempotency-Key');
    t.ok(r.proxy.bytesUp - start <= bytes.length - CHUNK + second.methods.length * OVERHEAD, `the bytes the server had were not sent again (${second.methods.join(' ')}; offsets ${seen.join(' ')}; first run stored ${created.offset})`);
    t.equal(done.sha256, entry.body.sha256);
  });

  await t.test('a checksum mismatch (460) refuses the entry', async (t) => {
    const entry = await r.entry(randomBytes(1000), { sha256: 'a'.repeat(64) });
    const { deps } = r.client();
    const error = await uploadFile(entry, deps).catch((e: unknown) => e);
    t.type(error, UploadRefused);
    t.match(error, { code: 'checksum_mismatch', status: 460 });
  });

  await t.test('a staged copy that is gone refuses the entry, before any request', async (t) => {
    const entry = await r.entry(randomBytes(1000));
    fs.rmSync(entry.body.stored);
    const { deps, methods } = r.client();
    await t.rejects(uploadFile(entry, deps), { code: 'staged_missing' });
    t.same(methods, []);
  });
});

t.test('a file over the server\'s advertised Tus-Max-Size is refused before it is sent', async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_MAX_FILE_BYTES: '4096' } });
  if (!s) return;
  const r = await rig(t, s);
  const entry = await r.entry(randomBytes(5000));
  const { deps, methods } = r.client();
  const error = await uploadFile(entry, deps).catch((e: unknown) => e);
  t.match(error, { code: 'too_large', message: /over the server's upload limit of/ });
  t.same(methods, ['OPTIONS'], 'nothing uploaded');
  t.equal(await readUploadMaxBytes(r.knex), 4096);
});

t.test('releaseStagedFile: only on the same sha256, and when no other unsettled entry uses the copy', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-release-'));
  const knex = (await openMirrorDatabase(path.join(dir, 'm.sqlite3'), { create: true }))!;
  t.teardown(async () => {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const source = path.join(dir, 'p.jpg');
  fs.writeFileSync(source, 'photo bytes');
  const copy = stageFile(path.join(dir, 'm.sqlite3.files'), source, { doing: 'stage', hint: 'test' });
  const entries = ['sent', 'pending'].map((status) => {
    const id = randomUUID();
    return { id, kind: 'event.file' as const, status, body: { id, stored: copy.stored, sha256: copy.sha256, size: copy.size, filename: 'p.jpg', comment: '' } };
  });
  for (const e of entries) await knex('outbox').insert({ id: e.id, kind: e.kind, target: randomUUID(), body: JSON.stringify(e.body), status: e.status, recorded_at: new Date().toISOString() });
  const [sent, pending] = entries as [typeof entries[0], typeof entries[0]];
  t.equal(await releaseStagedFile(knex, sent, 'b'.repeat(64)), false, 'another sha256: kept');
  t.equal(await releaseStagedFile(knex, sent, copy.sha256), false, 'the same bytes are pending in another entry: kept');
  t.ok(fs.existsSync(copy.stored));
  t.equal((await knex('outbox').where({ id: sent.id }).first()).upload_state, 'attached');
  await knex('outbox').where({ id: pending.id }).update({ status: 'sent' });
  t.equal(await releaseStagedFile(knex, pending, copy.sha256.toUpperCase()), true, 'confirmed, and nobody else needs it');
  t.notOk(fs.existsSync(copy.stored));
  t.equal(await releaseStagedFile(knex, pending, copy.sha256), true, 'twice is harmless');
});
