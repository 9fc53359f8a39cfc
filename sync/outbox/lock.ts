/**
 * One push at a time per mirror: a lock file beside it (`<mirror>.push.lock`, created with
 * O_EXCL, holding the holder's pid), as the credentials file does for token refreshes. A lock
 * whose holder died (kill -9) is taken over; a live holder is waited for, then the waiter finds
 * the entries already sent and sends nothing twice.
 */
import fs from 'node:fs';
import { failure } from '../errors.js';

export interface LockOptions {
  waitMs?: number;
  onWait?: () => void;
}

export async function withFileLock<T>(lockPath: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  await acquire(lockPath, options);
  try {
    return await work();
  } finally {
    await fs.promises.rm(lockPath, { force: true });
  }
}

async function acquire(lockPath: string, options: LockOptions): Promise<void> {
  const deadline = Date.now() + (options.waitMs ?? 120_000);
  let announced = false;
  for (;;) {
    try {
      await fs.promises.writeFile(lockPath, String(process.pid), { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await holderIsGone(lockPath)) {
      await fs.promises.rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw failure('input', `another fieldops push holds ${lockPath}`, 'wait for it to finish, or delete the lock file if no fieldops is running');
    }
    if (!announced) options.onWait?.();
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function holderIsGone(lockPath: string): Promise<boolean> {
  try {
    const pid = Number(await fs.promises.readFile(lockPath, 'utf8'));
    // An empty file: the holder was killed between creating and writing it.
    if (!Number.isInteger(pid) || pid <= 0) {
      const stat = await fs.promises.stat(lockPath);
      return Date.now() - stat.mtimeMs > 2000;
    }
    process.kill(pid, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ESRCH' || code === 'ENOENT';
  }
}
