import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Lock, type Locker, MemoryLocker, type RequestRelease } from '@tus/server';
import type { Clock } from '../../db/time.js';
import type { UploadRepository } from './ports.js';

/** How long a writer's lease lasts unrenewed (it is renewed every third of this while held). */
export const LEASE_MS = 10_000;
/** How long a request waits for another process's writer before giving up (423). */
const WAIT_MS = 15_000;
const POLL_MS = 100;

/** A tus error answer (the server turns `{status_code, body}` into its response). */
export const UPLOAD_LOCKED = { status_code: 423, body: 'The upload is being written by another request; retry shortly.' };
const NO_SUCH_UPLOAD = { status_code: 404, body: 'No such upload.' };

/**
 * The writer's lock of one upload, across processes (`serve --workers` runs several; tus's
 * MemoryLocker is per process). In the process: tus's MemoryLocker, whose `cancelReq` asks a
 * request still holding the upload (say, one whose client was cut) to let go. Across processes:
 * a lease on the upload's row (`file_uploads.lock_id`, `locked_until`), a conditional update,
 * renewed while held; the lease of a process that died runs out after LEASE_MS.
 */
export class DatabaseLocker implements Locker {
  private readonly memory = new MemoryLocker({ acquireLockTimeout: WAIT_MS });

  constructor(private readonly deps: { uploads: UploadRepository; clock: Clock; rowIdOf: (tusId: string) => string }) {}

  newLock(id: string): Lock {
    return new DatabaseLock(this.memory.newLock(id), this.deps, this.deps.rowIdOf(id));
  }
}

class DatabaseLock implements Lock {
  private readonly lockId = randomUUID();
  private renewal: NodeJS.Timeout | null = null;
  private held = false;

  constructor(
    private readonly memory: Lock,
    private readonly deps: { uploads: UploadRepository; clock: Clock },
    private readonly rowId: string,
  ) {}

  async lock(signal: AbortSignal, cancelReq: RequestRelease): Promise<void> {
    await this.memory.lock(signal, cancelReq);
    try {
      await this.takeLease(signal);
    } catch (error) {
      await this.memory.unlock();
      throw error;
    }
    this.held = true;
    this.renewal = setInterval(() => {
      void this.deps.uploads.renewLease(this.rowId, this.lockId, this.deps.clock.now() + LEASE_MS).catch(() => undefined);
    }, LEASE_MS / 3);
    this.renewal.unref();
  }

  async unlock(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    try {
      if (this.held) await this.deps.uploads.releaseLease(this.rowId, this.lockId);
    } finally {
      this.held = false;
      await this.memory.unlock();
    }
  }

  private async takeLease(signal: AbortSignal): Promise<void> {
    const started = performance.now();
    for (;;) {
      const now = this.deps.clock.now();
      if (await this.deps.uploads.takeLease(this.rowId, this.lockId, now, now + LEASE_MS)) return;
      if (!(await this.deps.uploads.find(this.rowId))) throw NO_SUCH_UPLOAD;
      if (signal.aborted || performance.now() - started > WAIT_MS) throw UPLOAD_LOCKED;
      await sleep(POLL_MS);
    }
  }
}
