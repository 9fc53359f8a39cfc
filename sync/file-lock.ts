/**
 * A lock file beside the file it guards, created with O_EXCL and holding the holder's pid: one
 * fieldops process at a time refreshes tokens (credentials file) or pushes a mirror's outbox.
 * A lock whose holder died (kill -9), or that is older than `staleMs`, is taken over; a live
 * holder is waited for. Takeovers are serialised by a breaker file and remove only the file that
 * was judged stale (same inode); a holder removes the lock only while it is still its own (its
 * nonce), so no waiter or late holder ever removes another's lock.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { failure } from './errors.js';
import { fsFailure } from './fs-failure.js';

export interface FileLockOptions {
  /** How long to wait for a live holder before failing. */
  waitMs: number;
  /** A lock older than this is taken over even if its pid runs (pid reuse, a hung holder). */
  staleMs?: number;
  /** The failure when waiting times out. */
  busy: { message: string; hint: string };
  /** Called once when the lock is found held (say that we are waiting). */
  onWait?: () => void;
  /** How to fix or move the folder when the lock file cannot be created there. */
  folderHint?: string;
}

/** A holder killed between creating the file and writing its pid leaves it empty for at most this long. */
const EMPTY_GRACE_MS = 2000;
const POLL_MS = 50;
/** A breaker file older than this was left by a waiter killed while taking over. */
const BREAKER_STALE_MS = 10_000;

export async function withFileLock<T>(lockPath: string, work: () => Promise<T>, options: FileLockOptions): Promise<T> {
  // The pid, and a nonce that tells this holder's lock from a later one of the same process.
  const content = `${process.pid} ${randomBytes(8).toString('hex')}`;
  try {
    await acquire(lockPath, content, options);
  } catch (error) {
    throw fsFailure(error, `create the lock file ${lockPath}`, options.folderHint ?? 'check the permissions of its folder');
  }
  try {
    return await work();
  } finally {
    await release(lockPath, content);
  }
}

/** Removes the lock only while it is still ours: one taken over meanwhile (past staleMs) is the new holder's. */
async function release(lockPath: string, content: string): Promise<void> {
  const current = await fs.promises.readFile(lockPath, 'utf8').catch(() => null);
  if (current === content) await fs.promises.rm(lockPath, { force: true });
}

async function acquire(lockPath: string, content: string, options: FileLockOptions): Promise<void> {
  const deadline = Date.now() + options.waitMs;
  let announced = false;
  for (;;) {
    try {
      await fs.promises.writeFile(lockPath, content, { flag: 'wx', mode: 0o600 });
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

/** A lock file as judged: its inode and its text (pid and nonce). */
interface Judged {
  ino: number;
  dev: number;
  text: string;
}

/** The lock as judged when its holder is gone or it is too old; null while it is held; 'released' when it vanished. */
async function staleLock(lockPath: string, staleMs: number): Promise<Judged | null | 'released'> {
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
  const judged = { ino: stat.ino, dev: stat.dev, text };
  const pid = Number(text.trim().split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return age > EMPTY_GRACE_MS ? judged : null;
  if (age > staleMs) return judged;
  try {
    process.kill(pid, 0);
    return null;
  } catch (error) {
    // ESRCH: no such process. EPERM: it runs (as another user), so it holds the lock.
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? judged : null;
  }
}

/**
 * Removes a lock judged stale, under a breaker file (`<lock>.break`, created exclusively) so that
 * takeovers run one at a time, and only while the lock is still the file judged (same inode and
 * text): a waiter that judged late can never remove the lock another waiter has just taken.
 */
async function takeOver(lockPath: string, judged: Judged): Promise<void> {
  const breaker = `${lockPath}.break`;
  try {
    await fs.promises.writeFile(breaker, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another waiter is taking over; a breaker left by a killed one expires.
    const held = await fs.promises.stat(breaker).catch(() => null);
    if (held && Date.now() - held.mtimeMs > BREAKER_STALE_MS) await fs.promises.rm(breaker, { force: true });
    return;
  }
  try {
    // Inode and text: a fresh lock may reuse the freed inode number, never the nonce.
    const now = await fs.promises.stat(lockPath).catch(() => null);
    const text = now ? await fs.promises.readFile(lockPath, 'utf8').catch(() => null) : null;
    if (now && now.ino === judged.ino && now.dev === judged.dev && text === judged.text) await fs.promises.rm(lockPath, { force: true });
  } finally {
    await fs.promises.rm(breaker, { force: true });
  }
}
