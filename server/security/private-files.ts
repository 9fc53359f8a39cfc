import fs from 'node:fs';
import path from 'node:path';

/**
 * What the server writes to disk (the SQLite database and its WAL, stored uploads) holds
 * tenants' data: readable by the server's own account only, whatever the process umask.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** The missing directories from the first absent ancestor down to `dir`, outermost first. */
function missingDirectories(dir: string): string[] {
  const missing: string[] = [];
  let current = path.resolve(dir);
  while (!fs.existsSync(current)) {
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return missing;
}

/**
 * Creates `dir` and its missing parents as 0700 (chmod after mkdir, so the umask changes
 * nothing). Directories that already exist keep their mode: they are the operator's.
 */
export function ensurePrivateDirSync(dir: string): void {
  for (const directory of missingDirectories(dir)) {
    try {
      fs.mkdirSync(directory, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    fs.chmodSync(directory, PRIVATE_DIR_MODE);
  }
}

/** As ensurePrivateDirSync, without blocking the event loop (the file store's hot path). */
export async function ensurePrivateDir(dir: string): Promise<void> {
  const exists = await fs.promises.stat(dir).then(() => true, () => false);
  if (!exists) ensurePrivateDirSync(dir);
}

/**
 * Creates `file` empty with mode 0600 unless it exists (then it is left alone). SQLite gives
 * its -wal and -shm files the database file's mode, so creating the database this way first
 * makes all three private.
 */
export function createPrivateFileSync(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}
