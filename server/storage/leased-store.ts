import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { KnexStoredFileRepository } from '../db/repositories/stored-files.js';
import type { Clock } from '../db/time.js';
import { type ByteRange, type FileStore, type ListedFile, type StagedFile, type StoredFile, putStaged } from './file-store.js';
import { CLAIM_STALE_MS, type Stopwatch, monotonicStopwatch } from './file-sweeper.js';

export interface LeaseDeps {
  repository: KnexStoredFileRepository;
  clock: Clock;
  logger: Logger;
  /** How long a lease lasts without being renewed (it is renewed every third of this). */
  graceMs: number;
  /** Told when an upload waits for a removal of its bytes to finish (observability, tests). */
  onRemovalWait?: (sha256: string) => void;
  /** How an upload measures its wait for a removal (default: the monotonic clock). */
  stopwatch?: Stopwatch;
}

/**
 * The file store as uploads use it: content-addressed bytes may be removed by the sweeper
 * (file-sweeper.ts) once nothing refers to them, and an upload's bytes enter the store before
 * the transaction that refers to them. So a staged file's `commit` first takes a lease on its
 * sha256 (committed to the database before the bytes move), then waits for any removal of
 * the same bytes already under way, then commits the bytes; `discard`, called once the
 * referencing transaction has committed or failed, gives the lease back and queues the key for
 * removal when nothing refers to it (a refused upload leaves nothing behind).
 *
 * The protocol between an upload and the sweepers, for one sha256:
 * 1. The upload writes its lease, then reads the claim. A sweeper notes the time (monotonic),
 *    writes its claim (a conditional update: one live claim per key), then reads leases and
 *    references. Each write is committed before its writer's read begins, so at least one of
 *    the two sees the other: the sweeper sees the lease (and keeps the bytes), or the upload
 *    sees the claim. A claim written after the upload's read sees the lease, so the claim seen
 *    then, if any, is the only one that may be removing the bytes.
 * 2. A sweeper's removal ends within REMOVAL_BUDGET_MS (half of CLAIM_STALE_MS) of the time it
 *    noted: it starts none later than half of that, and the store's request (DeleteObject) is
 *    aborted at its end. It then settles its claim (deletes the queue row) or releases it.
 * 3. The upload waits while the claim it saw is there. Once that claim is gone or replaced
 *    (settled, released, or taken over as stale by another sweeper: with clocks that agree
 *    within half of CLAIM_STALE_MS, never before the budget is spent), its removal is over: the
 *    upload commits the bytes (stored again if they were removed). A claim still there CLAIM_STALE_MS after the upload saw it (measured by the
 *    upload, from after the claim had committed: no clocks are compared) has outlived its
 *    sweeper's budget twice over: a dead or stalled process's. The upload takes it over with a
 *    conditional update (that claim released, the key still queued) before it commits, so the
 *    stalled sweeper can no longer settle it (it logs the overrun instead), and the next sweep
 *    claims the key afresh and finds the lease.
 * 4. The lease outlives the commit of the row that refers to the bytes (`discard`).
 * What no database can close is a delete the store received but carries out after its client
 * gave up on it, or a sweeper paused between its deadline check and its request: the half of
 * CLAIM_STALE_MS between a sweeper's deadline and an upload's takeover is the margin for those.
 */
export class LeasedFileStore implements FileStore {
  private readonly held = new Set<string>();
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    readonly inner: FileStore,
    private readonly deps: LeaseDeps,
  ) {}

  get tempDir(): string {
    return this.inner.tempDir;
  }

  get description(): string {
    return this.inner.description;
  }

  async stage(source: Readable, options: { maxBytes: number }): Promise<StagedFile> {
    const staged = await this.inner.stage(source, options);
    let lease: string | null = null;
    let stored: StoredFile | null = null;
    return {
      sha256: staged.sha256,
      size: staged.size,
      contentType: staged.contentType,
      tempPath: staged.tempPath,
      commit: async () => {
        if (stored) return stored;
        lease ??= await this.takeLease(staged.sha256);
        stored = await staged.commit();
        return stored;
      },
      discard: async () => {
        await staged.discard();
        if (lease === null) return;
        const id = lease;
        lease = null;
        await this.giveBack(id, staged.sha256);
      },
    };
  }

  put(source: Readable, options: { maxBytes: number }): Promise<StoredFile> {
    return putStaged(this, source, options);
  }

  openRead(relative: string, range?: ByteRange): Readable {
    return this.inner.openRead(relative, range);
  }

  has(sha256: string): Promise<boolean> {
    return this.inner.has(sha256);
  }

  remove(sha256: string, options?: { signal?: AbortSignal }): Promise<void> {
    return this.inner.remove(sha256, options);
  }

  list(): AsyncIterable<ListedFile> {
    return this.inner.list();
  }

  downloadUrl(relative: string, response: { disposition: string; contentType: string }): Promise<string | null> {
    return this.inner.downloadUrl(relative, response);
  }

  /**
   * Leases `sha256` for one upload, then waits while the claim a sweeper held on it at that
   * moment remains (its removal may be under way): steps 1 and 3 of the protocol above.
   */
  private async takeLease(sha256: string): Promise<string> {
    const { repository, clock, logger } = this.deps;
    const stopwatch = this.deps.stopwatch ?? monotonicStopwatch;
    const id = randomUUID();
    await repository.takeLease(id, sha256, clock.now());
    this.hold(id);
    try {
      const seen = await repository.removalClaim(sha256);
      if (seen !== null) {
        const since = stopwatch.now();
        this.deps.onRemovalWait?.(sha256);
        for (let delay = 5; ; delay = Math.min(delay * 2, 200)) {
          await sleep(delay);
          if ((await repository.removalClaim(sha256)) !== seen) break;
          if (stopwatch.now() - since > CLAIM_STALE_MS) {
            if (await repository.takeOverRemoval(sha256, seen)) logger.warn({ sha256 }, 'took over a file removal that outlived its claim (a stalled or dead process\'s)');
            break;
          }
        }
      }
    } catch (error) {
      await this.giveBack(id, sha256);
      throw error;
    }
    return id;
  }

  /**
   * Ends a lease: after the referencing transaction, so that the bytes were always leased or
   * referenced. Never throws (the request's outcome is decided): a lease left behind goes
   * stale, and the sweeper queues its key then.
   */
  private async giveBack(id: string, sha256: string): Promise<void> {
    this.release(id);
    try {
      await this.deps.repository.dropLease(id);
      if (!(await this.deps.repository.referenced(sha256))) await this.deps.repository.queue([sha256]);
    } catch (error) {
      this.deps.logger.warn({ err: error, sha256 }, 'could not end an upload lease; the file sweep will');
    }
  }

  private hold(id: string): void {
    this.held.add(id);
    if (this.renewal) return;
    this.renewal = setInterval(() => {
      this.deps.repository.renewLeases([...this.held], this.deps.clock.now()).catch((error) => this.deps.logger.warn({ err: error }, 'could not renew upload leases'));
    }, Math.max(1000, Math.floor(this.deps.graceMs / 3)));
    this.renewal.unref();
  }

  private release(id: string): void {
    this.held.delete(id);
    if (this.held.size === 0 && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = null;
    }
  }
}
