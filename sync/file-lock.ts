/**
 * A lock file beside the file it guards, created with O_EXCL and holding the holder's pid: one
 * fieldops process at a time refreshes tokens (credentials file) or pushes a mirror's outbox.
 * A lock whose holder died (kill -9), or that is older than `staleMs`, is taken over; a live
 * holder is waited for. Taking over moves the stale file aside and checks it moved the file it
 * judged (same inode): when two waiters judge one lock stale, the second must not remove the
 * lock the first has just created, so a wrongly moved lock is put back.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { failure } from './errors.js';

export interface FileLockOptions {
  /** How long to wait for a live holder before failing. */
  waitMs: number;
  /** A lock older than this is taken over even if its pid runs (pid reuse, a hung holder). */
  staleMs?: number;
  /** The failure when waiting times out. */
  busy: { message: string; hint: string };
  /** Called once when the lock is found held (say that we are waiting). */
  onWait?: () => void;
}

/** A holder killed between creating the file and writing its pid leaves it empty for at most this long. */
const EMPTY_GRACE_MS = 2000;
const POLL_MS = 50;

export async function withFileLock<T>(lockPath: string, work: () => Promise<T>, options: FileLockOptions): Promise<T> {
  await acquire(lockPath, options);
  try {
    return await work();
  } finally {
    await fs.promises.rm(lockPath, { force: true });
  }
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<void> {
  const deadline = Date.now() + options.waitMs;
  let announced = false;
  for (;;) {
    try {
      await fs.promises.writeFile(lockPath, String(process.pid), { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stale = await staleLock(lockPath, options.staleMs ?? Infinity);
    if (stale === 'released') continue;
    if (stale) {
      await takeOver(lockPath, stale);
      continue;
    }
    if (Date.now() > deadline) throw failure('input', options.busy.message, options.busy.hint);
    if (!announced) options.onWait?.();
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The lock's stat when its holder is gone or it is too old; null while it is held; 'released' when it vanished. */
async function staleLock(lockPath: string, staleMs: number): Promise<fs.Stats | null | 'released'> {
  let stat: fs.Stats;
  let text: string;
  try {
    stat = await fs.promises.stat(lockPath);
    text = await fs.promises.readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'released';
    throw error;
  }
  const age = Date.now() - stat.mtimeMs;
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) return age > EMPTY_GRACE_MS ? stat : null;
  if (age > staleMs) return stat;
  try {
    process.kill(pid, 0);
    return null;
  } catch (error) {
    // ESRCH: no such process. EPERM: it runs (as another user), so it holds the lock.
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? stat : null;
  }
}

async function takeOver(lockPath: string, judged: fs.Stats): Promise<void> {
  const aside = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await fs.promises.rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await fs.promises.stat(aside);
  if (moved.ino !== judged.ino || moved.dev !== judged.dev) {
    // Another waiter took the stale lock over first; this moved its fresh lock: put it back.
    await fs.promises.link(aside, lockPath).catch(() => undefined);
  }
  await fs.promises.rm(aside, { force: true });
}
