import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { loadConfig, parseFileStore } from '../../server/config.js';
import { translated } from '../../server/db/errors.js';
import { type Database, openDatabase } from '../../server/db/knex.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { KnexStoredFileRepository } from '../../server/db/repositories/stored-files.js';
import { createStore } from '../../server/db/store.js';
import type { Store } from '../../server/domain/ports.js';
import { createLogger } from '../../server/logger.js';
import { type ByteRange, DiskFileStore, type FileStore, type ListedFile, type StagedFile, type StoredFile } from '../../server/storage/file-store.js';
import { CLAIM_STALE_MS, FileSweeper, REMOVAL_BUDGET_MS, type Stopwatch } from '../../server/storage/file-sweeper.js';
import { LeasedFileStore } from '../../server/storage/leased-store.js';
import { S3FileStore } from '../../server/storage/s3-store.js';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { ManualClock } from '../helpers/server.js';
import { startS3Server } from './s3-server.js';

const GRACE_MS = 3600_000;
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const bytesOf = async (stream: Readable) => Buffer.concat(await stream.toArray());

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * The monotonic time of one process, moved by the test: what the protocol measures (an upload's
 * wait, a removal's budget) passes only when `advance` says so, and a signal it gave fires then.
 */
class ManualStopwatch implements Stopwatch {
  private at = 0;
  private timers: Array<{ at: number; controller: AbortController }> = [];
  now(): number {
    return this.at;
  }
  signalAfter(ms: number): AbortSignal {
    const controller = new AbortController();
    this.timers.push({ at: this.at + ms, controller });
    return controller.signal;
  }
  advance(ms: number): void {
    this.at += ms;
    for (const timer of this.timers.filter((timer) => timer.at <= this.at)) timer.controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    this.timers = this.timers.filter((timer) => timer.at > this.at);
  }
}

interface Hold {
  entered: Deferred;
  open: Deferred;
  ignoreSignal: boolean;
  signal?: AbortSignal;
}

/**
 * The real store, with a hook in `remove`: a test can hold a sweeper between its claim and the
 * removal of the bytes (the window an upload of the same bytes must not slip into). A held
 * removal hangs, as a request to an unresponsive bucket does, until opened or until its signal
 * fires (then it fails, as an aborted request does), unless it is told to ignore its signal.
 */
class HookedStore implements FileStore {
  private held: Hold | null = null;
  constructor(readonly inner: FileStore) {}
  get tempDir(): string {
    return this.inner.tempDir;
  }
  get description(): string {
    return this.inner.description;
  }
  /** The next `remove` waits for the returned `open()`; `entered` resolves when it has begun. */
  holdNextRemove(options: { ignoreSignal?: boolean } = {}): { entered: Promise<void>; open(): void; aborted(): boolean } {
    const held: Hold = { entered: deferred(), open: deferred(), ignoreSignal: options.ignoreSignal ?? false };
    this.held = held;
    return { entered: held.entered.promise, open: () => held.open.resolve(), aborted: () => held.signal?.aborted === true };
  }
  stage(source: Readable, options: { maxBytes: number }): Promise<StagedFile> {
    return this.inner.stage(source, options);
  }
  put(source: Readable, options: { maxBytes: number }): Promise<StoredFile> {
    return this.inner.put(source, options);
  }
  openRead(relative: string, range?: ByteRange): Readable {
    return this.inner.openRead(relative, range);
  }
  has(sha256: string): Promise<boolean> {
    return this.inner.has(sha256);
  }
  async remove(sha256: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const held = this.held;
    this.held = null;
    const signal = held?.ignoreSignal ? undefined : options.signal;
    if (held) {
      held.signal = options.signal;
      held.entered.resolve();
      await new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        void held.open.promise.then(resolve);
      });
    }
    await this.inner.remove(sha256, { signal });
  }
  list(): AsyncIterable<ListedFile> {
    return this.inner.list();
  }
  downloadUrl(relative: string, response: { disposition: string; contentType: string }): Promise<string | null> {
    return this.inner.downloadUrl(relative, response);
  }
}

/** Log lines at warn and above, parsed (a pino destination). */
function logLines(): { lines: Array<{ level: number; msg: string; sha256?: string }>; write(line: string): void } {
  const lines: Array<{ level: number; msg: string; sha256?: string }> = [];
  return { lines, write: (line) => void lines.push(JSON.parse(line)) };
}

type Kind = 'disk' | 's3';

/**
 * One "server process" over a database: the leased store uploads go through, the sweeper, and
 * the repositories; `upload` and `deleteFile` do what the event file service does, step by step.
 */
function processOver(database: Database, raw: FileStore, clock: ManualClock, options: { onRemovalWait?: (sha256: string) => void } = {}) {
  const repository = translated(new KnexStoredFileRepository(database.knex));
  const log = logLines();
  const logger = createLogger('warn', log);
  const stopwatch = new ManualStopwatch();
  const hooked = new HookedStore(raw);
  const leased = new LeasedFileStore(hooked, { repository, clock, logger, graceMs: GRACE_MS, onRemovalWait: options.onRemovalWait, stopwatch });
  const sweeper = new FileSweeper({ repository, files: hooked, clock, logger, graceMs: GRACE_MS, stopwatch });
  const store: Store = createStore(database);
  return {
    repository,
    hooked,
    leased,
    sweeper,
    store,
    stopwatch,
    log: log.lines,
    /** Staged, leased and committed, then referred to in a transaction, then the lease given back (withUpload's finally). */
    async upload(tenantId: string, eventId: string, data: Buffer, afterCommit?: () => Promise<void>): Promise<string> {
      const staged = await leased.stage(Readable.from([data]), { maxBytes: 1 << 20 });
      try {
        const stored = await staged.commit();
        await afterCommit?.();
        const id = randomUUID();
        await store.transaction((repos) =>
          repos.events.attachFile({ id, tenantId, eventId, sha256: stored.sha256, path: stored.path, size: stored.size, contentType: stored.contentType, filename: 'f.bin', createdAt: clock.now() }),
        );
        return id;
      } finally {
        await staged.discard();
      }
    },
    /** The deleting transaction queues the key; once committed, the sweeper is told. */
    async deleteFile(tenantId: string, eventId: string, fileId: string, data: Buffer): Promise<void> {
      await store.transaction((repos) => repos.events.deleteFile(tenantId, eventId, fileId));
      await sweeper.released([sha(data)]);
    },
    async deleteEvent(tenantId: string, eventId: string, datas: Buffer[]): Promise<void> {
      await store.transaction((repos) => repos.events.delete(tenantId, eventId));
      await sweeper.released(datas.map(sha));
    },
  };
}

async function openStore(t: Test, kind: Kind, s3: Awaited<ReturnType<typeof startS3Server>> | null): Promise<FileStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-removal-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  if (kind === 'disk') return DiskFileStore.open(dir);
  const config = parseFileStore(`s3://${s3!.bucket}/run-${randomUUID()}`, '/unused', s3!.env);
  if (config.kind !== 's3') throw new Error('expected s3');
  const store = await S3FileStore.open(config, dir);
  t.teardown(() => store.close());
  return store;
}

/** A migrated database with one tenant and two events of it, a store of `kind`, and a process over them. */
async function setup(t: Test, kind: Kind, s3: Awaited<ReturnType<typeof startS3Server>> | null) {
  const testDb = await createTestDatabase();
  const database = openDatabase(testDb.config);
  t.teardown(async () => {
    await database.close();
    await testDb.drop();
  });
  await migrateToLatest(database.knex);
  const raw = await openStore(t, kind, s3);
  const clock = new ManualClock(Date.now());
  // Resolved when an upload of these bytes starts waiting for a removal under way.
  const waits = new Map<string, Deferred>();
  const waitSeen = (data: Buffer) => {
    if (!waits.has(sha(data))) waits.set(sha(data), deferred());
    return waits.get(sha(data))!.promise;
  };
  const main = processOver(database, raw, clock, { onRemovalWait: (sha256) => waits.get(sha256)?.resolve() });
  const tenant = async (name: string) => {
    const id = randomUUID();
    await main.store.repos.tenants.insert({ id, name, createdAt: clock.now() });
    return id;
  };
  const event = (tenantId: string) =>
    main.store.transaction(async (repos) => {
      const id = randomUUID();
      await repos.events.insert({ id, tenantId, eventType: 'sighting', title: 'e', time: clock.now(), latitude: null, longitude: null, priority: 0, state: 'new', eventDetails: {}, createdByUserId: null, createdByClientId: null, createdAt: clock.now(), updatedAt: clock.now() });
      await repos.events.assignSerialNumber(tenantId, id);
      return id;
    });
  const north = await tenant('north');
  return {
    testDb, database, raw, clock, waitSeen, main, tenant, event, north,
    present: (data: Buffer) => raw.has(sha(data)),
    read: async (data: Buffer) => bytesOf(raw.openRead(`sha256/${sha(data).slice(0, 2)}/${sha(data).slice(2, 4)}/${sha(data)}`)),
    queued: async () => (await database.knex('stored_file_removals').select('sha256')).map((row) => row.sha256 as string),
    leases: async () => Number((await database.knex('stored_file_uploads').count({ n: '*' }))[0]!.n),
  };
}

t.test(`removing the bytes of deleted files, on disk and in a bucket (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) {
    t.pass('skipped', { skip: reason });
    return;
  }
  const s3 = await startS3Server();
  t.teardown(() => s3.close());

  for (const kind of ['disk', 's3'] as const) {
    await t.test(`${kind}: a deleted file's bytes go; shared bytes stay until their last reference goes; another tenant's are theirs`, async (t) => {
      const f = await setup(t, kind, s3);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const south = await f.tenant('south');
      const theirs = await f.event(south);
      const shared = randomBytes(2000);
      const alone = randomBytes(1000);
      const a = await f.main.upload(f.north, one, shared);
      const b = await f.main.upload(f.north, two, shared);
      const c = await f.main.upload(south, theirs, shared);
      const d = await f.main.upload(f.north, one, alone);
      t.equal(await f.leases(), 0, 'every lease was given back');
      t.same(await f.queued(), [], 'nothing queued: everything uploaded is referred to');

      await f.main.deleteFile(f.north, one, d, alone);
      t.notOk(await f.present(alone), 'a deleted file\'s bytes are gone');
      await f.main.deleteFile(f.north, one, a, shared);
      t.ok(await f.present(shared), 'kept: another event refers to the same bytes');
      await f.main.deleteEvent(f.north, two, [shared]);
      t.ok(await f.present(shared), 'kept: another tenant refers to the same bytes');
      t.same(await f.read(shared), shared, 'and they read back whole');
      t.same(await f.queued(), [], 'a key still referred to leaves the queue');
      await f.main.deleteFile(south, theirs, c, shared);
      t.notOk(await f.present(shared), 'the last reference gone: the bytes are gone');
      t.same(await f.queued(), []);
      t.ok(b);

      const again = await f.main.upload(f.north, one, shared);
      t.ok(await f.present(shared), 'the same bytes uploaded again are stored again');
      t.same(await f.read(shared), shared);
      t.ok(again);
    });

    await t.test(`${kind}: a removal under way when an upload of the same bytes arrives: the upload waits, then stores them again`, async (t) => {
      const f = await setup(t, kind, s3);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3000);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      // The sweeper claims the key, finds nothing using it, and is held just before removing.
      const held = f.main.hooked.holdNextRemove();
      const removal = f.main.sweeper.released([sha(data)]);
      await held.entered;
      t.ok(await f.present(data), 'claimed, not yet removed');
      const waited = f.waitSeen(data).then(() => 'waited' as const);
      const upload = f.main.upload(f.north, two, data);
      // Without the wait, the upload would find the bytes still there and refer to them.
      t.equal(await Promise.race([upload.then(() => 'referred' as const), waited]), 'waited', 'the upload waits for the removal under way');
      held.open();
      await removal;
      const id = await upload;
      t.ok(id, 'the upload then completes');
      t.ok(await f.present(data), 'its bytes are in the store: the upload stored them again after the removal');
      t.same(await f.read(data), data);
      t.same(await f.queued(), []);
      t.equal(await f.leases(), 0);
    });

    await t.test(`${kind}: a removal that hangs is aborted at its deadline: its claim released, the key still queued for the next sweep`, async (t) => {
      const f = await setup(t, kind, s3);
      const one = await f.event(f.north);
      const data = randomBytes(1500);
      const file = await f.main.upload(f.north, one, data);
      const held = f.main.hooked.holdNextRemove();
      const removal = f.main.deleteFile(f.north, one, file, data);
      await held.entered;
      f.main.stopwatch.advance(REMOVAL_BUDGET_MS - 1);
      t.notOk(held.aborted(), 'not before its budget is spent');
      f.main.stopwatch.advance(1);
      t.ok(held.aborted(), 'the store is told to give the removal up (the bucket\'s request aborted)');
      held.open();
      await removal;
      t.ok(await f.present(data), 'the aborted removal removed nothing');
      t.equal(await f.main.repository.removalClaim(sha(data)), null, 'its claim is released');
      t.same(await f.queued(), [sha(data)], 'the key stays queued');
      t.match(f.main.log, [{ msg: /could not remove a deleted file's bytes/ }]);
      t.match(await f.main.sweeper.sweepOnce(), { removed: 1 }, 'the next sweep removes the bytes');
      t.notOk(await f.present(data));
    });

    await t.test(`${kind}: an upload that outwaits a stalled removal takes its claim over, then stores; the removal, aborted at its deadline, leaves the bytes`, async (t) => {
      const f = await setup(t, kind, s3);
      const other = openDatabase(f.testDb.config);
      t.teardown(() => other.close());
      const sweeping = processOver(other, f.raw, f.clock);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3100);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      const held = sweeping.hooked.holdNextRemove();
      const removal = sweeping.sweeper.removeIfUnused(sha(data)).then(() => null, (error: Error) => error);
      await held.entered;
      t.ok(await f.main.repository.removalClaim(sha(data)), 'the sweeper holds its claim, its removal under way, stalled');
      const waited = f.waitSeen(data);
      const upload = f.main.upload(f.north, two, data);
      await waited;
      // The upload's own time: it has waited longer than a live sweeper's removal may last.
      f.main.stopwatch.advance(CLAIM_STALE_MS + 1);
      t.ok(await upload, 'the upload stops waiting and completes');
      t.equal(await f.main.repository.removalClaim(sha(data)), null, 'it took the claim over: the sweeper holds it no more');
      t.same(await f.queued(), [sha(data)], 'the key stays queued');
      t.match(f.main.log, [{ msg: /took over a file removal that outlived its claim/, sha256: sha(data) }]);
      // The sweeper's deadline, long passed in real time (in which both clocks run together).
      sweeping.stopwatch.advance(REMOVAL_BUDGET_MS);
      t.ok(held.aborted(), 'the stalled removal is aborted');
      held.open();
      t.match(await removal, { name: 'TimeoutError' }, 'and fails');
      t.ok(await f.present(data), 'the bytes the upload referred to are there');
      t.same(await f.read(data), data);
      t.match(await f.main.sweeper.sweepOnce(), { removed: 0 }, 'the next sweep claims the key afresh, finds it referred to');
      t.same(await f.queued(), []);
      t.equal(await f.leases(), 0);
    });

    await t.test(`${kind}: a removal that outlasts its claim (its store ignored the deadline) cannot settle it: it reports the overrun, the key stays queued`, async (t) => {
      const f = await setup(t, kind, s3);
      const other = openDatabase(f.testDb.config);
      t.teardown(() => other.close());
      const sweeping = processOver(other, f.raw, f.clock);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3200);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      const held = sweeping.hooked.holdNextRemove({ ignoreSignal: true });
      const removal = sweeping.sweeper.removeIfUnused(sha(data));
      await held.entered;
      const waited = f.waitSeen(data);
      const upload = f.main.upload(f.north, two, data);
      await waited;
      f.main.stopwatch.advance(CLAIM_STALE_MS + 1);
      await upload;
      held.open();
      t.equal(await removal, true, 'the late removal went ahead (what the deadline exists to prevent)');
      t.match(sweeping.log, [{ level: 50, msg: /a file removal outlasted its claim/, sha256: sha(data) }], 'and is reported');
      t.same(await f.queued(), [sha(data)], 'the queue row was not settled by the sweeper that lost its claim');
    });

    await t.test(`${kind}: an upload between storing its bytes and referring to them keeps them from a concurrent removal`, async (t) => {
      const f = await setup(t, kind, s3);
      const [one, two] = [await f.event(f.north), await f.event(f.north)];
      const data = randomBytes(3000);
      const file = await f.main.upload(f.north, one, data);
      let removalDone = false;
      const second = await f.main.upload(f.north, two, data, async () => {
        // The bytes are committed (found in the store already), the row not written yet: the
        // only reference is deleted now, and the sweeper runs.
        await f.main.deleteFile(f.north, one, file, data);
        removalDone = true;
        t.ok(await f.present(data), 'the lease kept the bytes');
      });
      t.ok(removalDone);
      t.ok(await f.present(data), 'still there once the upload refers to them');
      t.same(await f.read(data), data);
      t.same(await f.queued(), [], 'referred to: not queued');
      await f.main.deleteFile(f.north, two, second, data);
      t.notOk(await f.present(data), 'deleted in turn: gone');
    });

    await t.test(`${kind}: a refused upload's bytes are queued when its lease ends; a crashed upload's when its lease goes stale`, async (t) => {
      const f = await setup(t, kind, s3);
      const one = await f.event(f.north);
      const refused = randomBytes(500);
      await t.rejects(
        f.main.upload(f.north, one, refused, async () => {
          throw new Error('409: refused inside the transaction');
        }),
      );
      t.ok(await f.present(refused), 'stored before the transaction');
      t.same(await f.queued(), [sha(refused)], 'queued when the lease was given back');
      t.match(await f.main.sweeper.sweepOnce(), { removed: 1 });
      t.notOk(await f.present(refused), 'removed by the sweep');

      const crashed = randomBytes(600);
      const staged = await f.main.leased.stage(Readable.from([crashed]), { maxBytes: 1000 });
      await staged.commit(); // and the process dies: no row, no discard
      t.match(await f.main.sweeper.sweepOnce(), { removed: 0 });
      t.ok(await f.present(crashed), 'a live lease keeps the bytes');
      f.clock.advance(GRACE_MS + 1);
      t.match(await f.main.sweeper.sweepOnce(), { removed: 1 });
      t.notOk(await f.present(crashed), 'a lease not renewed for the grace period is a dead process\'s: its bytes go');
      t.equal(await f.leases(), 0);
    });

    await t.test(`${kind}: two processes on one database: one removes; a dead sweeper's claim is taken over once stale`, async (t) => {
      const f = await setup(t, kind, s3);
      const other = openDatabase(f.testDb.config);
      t.teardown(() => other.close());
      const second = processOver(other, f.raw, f.clock);
      const one = await f.event(f.north);
      const data = randomBytes(700);
      const file = await f.main.upload(f.north, one, data);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, file));
      const results = await Promise.all([f.main.sweeper.removeIfUnused(sha(data)), second.sweeper.removeIfUnused(sha(data)), second.sweeper.removeIfUnused(sha(data))]);
      t.equal(results.filter(Boolean).length, 1, 'exactly one removal');
      t.notOk(await f.present(data));
      t.same(await f.queued(), []);

      const orphan = randomBytes(800);
      const id = await f.main.upload(f.north, one, orphan);
      await f.main.store.transaction((repos) => repos.events.deleteFile(f.north, one, id));
      t.ok(await f.main.repository.claimRemoval(sha(orphan), randomUUID(), f.clock.now(), f.clock.now() - CLAIM_STALE_MS), 'a sweeper claims it, then dies');
      t.match(await second.sweeper.sweepOnce(), { removed: 0 }, 'a live claim is left alone');
      t.ok(await f.present(orphan));
      f.clock.advance(CLAIM_STALE_MS + 1);
      t.match(await second.sweeper.sweepOnce(), { removed: 1 }, 'a stale claim is taken over');
      t.notOk(await f.present(orphan));
    });

    await t.test(`${kind}: bytes nothing refers to from before (deleted earlier, copied in) are found by the store's one-time scan`, async (t) => {
      const f = await setup(t, kind, s3);
      const one = await f.event(f.north);
      const kept = randomBytes(900);
      await f.main.upload(f.north, one, kept);
      // Written straight into the store, as a deletion before this release left them.
      const orphan = randomBytes(901);
      await f.raw.put(Readable.from([orphan]), { maxBytes: 1000 });
      const first = await f.main.sweeper.sweepOnce();
      t.same(first, { removed: 0, orphansQueued: 1 }, 'found, but written within the grace period: not removed yet');
      t.ok(await f.present(orphan));
      // The clock was read before the bytes were written: past the grace period with a margin.
      f.clock.advance(GRACE_MS + 60_000);
      t.same(await f.main.sweeper.sweepOnce(), { removed: 1, orphansQueued: 0 }, 'removed once the grace period has passed; the store is not scanned again');
      t.notOk(await f.present(orphan));
      t.ok(await f.present(kept), 'referred-to bytes are never queued by the scan');
    });
  }
});

t.test('FIELDOPS_FILE_SWEEP_SECONDS and FIELDOPS_FILE_GRACE_SECONDS', async (t) => {
  const base = { FIELDOPS_DATA_DIR: os.tmpdir() };
  t.match(loadConfig(base), { fileSweepSeconds: 300, fileGraceSeconds: 3600 }, 'defaults');
  t.match(loadConfig({ ...base, FIELDOPS_FILE_SWEEP_SECONDS: '0', FIELDOPS_FILE_GRACE_SECONDS: '60' }), { fileSweepSeconds: 0, fileGraceSeconds: 60 });
  t.throws(() => loadConfig({ ...base, FIELDOPS_FILE_GRACE_SECONDS: '5' }), /FIELDOPS_FILE_GRACE_SECONDS must be an integer between 60 and 604800/, 'a grace shorter than an upload could take is refused');
  t.throws(() => loadConfig({ ...base, FIELDOPS_FILE_SWEEP_SECONDS: 'often' }), /FIELDOPS_FILE_SWEEP_SECONDS/);
});
