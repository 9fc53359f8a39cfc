/**
 * Files attached to records made offline (patrol files) are copied beside the mirror, into
 * `<mirror>.files/<sha256>`, when they are attached or imported: what is pushed is what was
 * attached, even if the original moves. Used by `fieldops patrols attach` and `fieldops outbox
 * import`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fsFailure } from '../fs-failure.js';
import { writeNewPrivateFile } from '../private-file.js';
import { contentDigest } from './ids.js';

/**
 * Stores `bytes` in `directory` (created 0700) under their sha256, and returns the file's path.
 * Written whole: to a temporary file of this writer's own (0600, fsynced), then renamed into
 * place, so two fieldops storing the same bytes at once never write into one file, and a crash
 * never leaves a partial file under the content's name (which would be kept as it is: bytes
 * already there are not written again). A file-system failure is a ClientFailure saying what
 * could not be done (`doing` completes "cannot ...") and `hint`.
 */
export function storeAttachment(directory: string, bytes: Uint8Array, failure: { doing: string; hint: string }): string {
  const stored = path.join(directory, contentDigest(bytes));
  const temporary = `${stored}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (!fs.existsSync(stored)) {
      writeNewPrivateFile(temporary, bytes);
      fs.renameSync(temporary, stored);
    }
  } catch (error) {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // The failure that matters is the one above.
    }
    throw fsFailure(error, failure.doing, failure.hint);
  }
  return stored;
}
