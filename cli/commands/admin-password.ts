import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../server/config.js';

/**
 * How a generated admin password reaches the operator: printed once on stderr, or, with
 * FIELDOPS_ADMIN_PASSWORD_FILE (services whose stderr goes to persistent logs), written to that
 * file with mode 0600 and only the file named on stderr. Returns the line to print.
 */
export function announceAdminPassword(config: Pick<Config, 'adminPasswordFile'>, password: string): string {
  const file = config.adminPasswordFile;
  if (!file) return `admin password (shown only this once): ${password}`;
  try {
    writePrivately(file, password + '\n');
  } catch (error) {
    // Never lose the password: an unwritable file falls back to saying it.
    return `admin password (shown only this once; ${file} could not be written: ${(error as NodeJS.ErrnoException).code ?? 'error'}): ${password}`;
  }
  return `admin password written to ${file} (mode 0600; read it, then delete the file)`;
}

/**
 * A new 0600 file (created exclusively, never through a symlink) renamed over `file`, so a file
 * or link left at that path, whatever its mode or target, never receives the secret.
 */
function writePrivately(file: string, text: string): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
