import fs from 'node:fs';

/**
 * Writes `data` to a new file of this user's only (created exclusively, mode 0600) and fsyncs it
 * before closing: the bytes are on disk when this returns. The callers write to a temporary name
 * and then link or rename it into place, so a crash never leaves a partial file under the real one.
 */
export function writeNewPrivateFile(file: string, data: string | Uint8Array): void {
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
