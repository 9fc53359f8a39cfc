/**
 * The removal tests' harness (test/storage/file-removal.test.ts): a database with a store of
 * each kind, "processes" over them that upload and delete as the event file service does, step
 * by step, a store whose removals can be held, and a stopwatch the test moves.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Test } from 'tap';
import { parseFileStore } from '../../server/config.js';
import { translated } from '../../server/db/errors.js';
import { type Database, openDatabase } from '../../server/db/knex.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { KnexStoredFileRepository } from '../../server/db/repositories/stored-files.js';
import { createStore } from '../../server/db/store.js';
import type { Store } from '../../server/domain/ports.js';
import { createLogger } from '../../server/logger.js';
import { type ByteRange, DiskFileStore, type FileStore, type ListedFile, type StagedFile, type StoredFile } from '../../server/storage/file-store.js';
import { FileSweeper, type Stopwatch } from '../../server/storage/file-sweeper.js';
import { LeasedFileStore } from '../../server/storage/leased-store.js';
import { S3FileStore } from '../../server/storage/s3-store.js';
import { createTestDatabase } from '../helpers/database.js';
import { ManualClock } from '../helpers/server.js';
import { startS3Server } from './s3-server.js';

export const GRACE_MS = 3600_000;
export const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
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
export function processOver(database: Database, raw: FileStore, clock: ManualClock, options: { onRemovalWait?: (sha256: string) => void } = {}) {
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
export async function setup(t: Test, kind: Kind, s3: Awaited<ReturnType<typeof startS3Server>> | null) {
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
