/**
 * FIELDOPS_ADMIN_PASSWORD_FILE: where a generated admin password is written (mode 0600) instead
 * of being printed, for services whose stderr is kept in logs. The password is never printed
 * when this is set: a start whose file cannot be written fails (before migrating, by the check
 * below; or, should the write itself fail, with the first-start set-up rolled back).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config.js';

const HINT = 'create its folder, or set FIELDOPS_ADMIN_PASSWORD_FILE to a writable file path (unset, the password is printed once on stderr; or choose it with FIELDOPS_ADMIN_PASSWORD)';

/** Proves that `file` can be written as writeAdminPasswordFile writes it, leaving nothing behind. */
export function checkAdminPasswordFile(file: string): void {
  const probe = temporaryName(file);
  try {
    // A directory at the path would make the final rename fail.
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: 'EISDIR' });
    fs.closeSync(openExclusive(probe));
    fs.rmSync(probe, { force: true });
  } catch (error) {
    throw describe(error, file);
  }
}

/**
 * A new 0600 file (created exclusively, never through a symlink) renamed over `file`, so a file
 * or link left at that path, whatever its mode or target, never receives the secret. Failures
 * are ConfigErrors that name the file and never the password.
 */
export function writeAdminPasswordFile(file: string, password: string): void {
  const temporary = temporaryName(file);
  try {
    const fd = openExclusive(temporary);
    try {
      fs.fchmodSync(fd, 0o600);
      fs.writeSync(fd, password + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw describe(error, file);
  }
}

const temporaryName = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);

const openExclusive = (file: string) => fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);

function describe(error: unknown, file: string): ConfigError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  const why =
    code === 'ENOENT' ? 'its folder does not exist'
    : code === 'ENOTDIR' ? 'a part of that path is a regular file'
    : code === 'EISDIR' ? 'it is a directory'
    : `${code}`;
  return new ConfigError(`FIELDOPS_ADMIN_PASSWORD_FILE ${file} cannot be written: ${why}`, HINT, { cause: error });
}
