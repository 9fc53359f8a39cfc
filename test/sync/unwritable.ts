/**
 * Making a file or folder unwritable for a test, for real. NOTE: tests here run as root, and
 * `chmod` does not stop root; the immutable attribute (`chattr +i`, ext4 and most disk file
 * systems, not tmpfs) does. As another user, `chmod a-w` does. Whichever works is checked by
 * trying to write; when neither does, the caller skips with the reason.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';

export type Unwritable = { how: 'chattr +i' | 'chmod a-w' } | { how: null; reason: string };

export function makeUnwritable(t: Test, target: string): Unwritable {
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    const set = spawnSync('chattr', ['+i', target], { encoding: 'utf8' });
    if (set.status === 0) {
      // Removed before the test's temporary folders are: an immutable file cannot be deleted.
      t.teardown(() => void spawnSync('chattr', ['-i', target]));
      if (!writable(target)) return { how: 'chattr +i' };
      return { how: null, reason: `chattr +i ${target} did not stop writes here` };
    }
    return { how: null, reason: `running as root, where chmod does not stop writes, and chattr +i failed here (${(set.stderr || set.error?.message || '').trim()})` };
  }
  const mode = fs.statSync(target).mode;
  fs.chmodSync(target, mode & ~0o222);
  t.teardown(() => fs.chmodSync(target, mode));
  return writable(target) ? { how: null, reason: 'chmod a-w did not stop writes here' } : { how: 'chmod a-w' };
}

/** Whether a write to `target` (a file: append; a folder: a new file in it) succeeds. */
function writable(target: string): boolean {
  const folder = fs.statSync(target).isDirectory();
  const probe = folder ? path.join(target, '.write-probe') : target;
  try {
    if (folder) {
      fs.writeFileSync(probe, 'x');
      fs.rmSync(probe);
    } else fs.appendFileSync(probe, '');
    // NOTE: appending nothing may not be checked by every file system; opening for writing is.
    if (!folder) fs.closeSync(fs.openSync(probe, 'r+'));
    return true;
  } catch {
    return false;
  }
}
