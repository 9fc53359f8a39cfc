/**
 * Files attached to records made offline (event and patrol files) are copied beside the mirror,
 * into `<mirror>.files/<sha256>`, when they are attached or imported: what is pushed is what was
 * attached, even if the original moves. Used by `fieldops events new --file`, `events attach`,
 * `patrols attach` and `fieldops outbox import`.
 *
 * A staged copy lives until the server has confirmed the file by its content hash (the attach
 * outcome's `sha256`) and no other unsettled entry still points at it: `releaseStagedFile`.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { fsFailure } from '../fs-failure.js';
import { writeNewPrivateFile } from '../private-file.js';
import { contentDigest } from './ids.js';
import type { OutboxEntry } from './model.js';

/** The largest file the CLI stages, whatever the server advertises (the server's default limit). */
export const MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;

/** The body of an `event.file` / `patrol.file` entry as recorded (the push sends `{id, upload, comment}`). */
export interface StagedFileBody {
  id: string;
  /** The staged copy: `<mirror>.files/<sha256>`. */
  stored: string;
  sha256: string;
  size: number;
  filename: string;
  comment: string;
}

export interface FsFailureWords {
  /** Completes "cannot ...". */
  doing: string;
  hint: string;
}

const COPY_CHUNK = 1024 * 1024;

/**
 * Stores `bytes` in `directory` (created 0700) under their sha256, and returns the file's path.
 * Written whole: to a temporary file of this writer's own (0600, fsynced), then renamed into
 * place, so two fieldops storing the same bytes at once never write into one file, and a crash
 * never leaves a partial file under the content's name (which would be kept as it is: bytes
 * already there are not written again). A file-system failure is a ClientFailure saying what
 * could not be done (`doing` completes "cannot ...") and `hint`.
 */
export function storeAttachment(directory: string, bytes: Uint8Array, failure: FsFailureWords): string {
  const stored = path.join(directory, contentDigest(bytes));
  const temporary = `${stored}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (!fs.existsSync(stored)) {
      writeNewPrivateFile(temporary, bytes);
      fs.renameSync(temporary, stored);
    }
  } catch (error) {
    removeQuietly(temporary);
    throw fsFailure(error, failure.doing, failure.hint);
  }
  return stored;
}

/**
 * Copies the file at `source` into `directory` under its sha256, streaming (a 50 MiB photo is
 * never held in memory whole), with the same guarantees as `storeAttachment`: a temporary file of
 * this writer's own, fsynced, renamed into place; bytes already there are kept. `source` is read
 * once, so the digest is of exactly the bytes staged. A failure reading `source` is thrown as is
 * (the caller words it); one writing the copy is a ClientFailure with `failure`'s words.
 */
export function stageFile(directory: string, source: string, failure: FsFailureWords): { stored: string; sha256: string; size: number } {
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw fsFailure(error, failure.doing, failure.hint);
  }
  const temporary = path.join(directory, `incoming.${randomBytes(8).toString('hex')}.tmp`);
  const hash = createHash('sha256');
  let size = 0;
  const input = fs.openSync(source, 'r');
  try {
    let output: number;
    try {
      output = fs.openSync(temporary, 'wx', 0o600);
    } catch (error) {
      throw fsFailure(error, failure.doing, failure.hint);
    }
    try {
      const buffer = Buffer.allocUnsafe(COPY_CHUNK);
      for (;;) {
        const read = fs.readSync(input, buffer, 0, COPY_CHUNK, null);
        if (read === 0) break;
        hash.update(buffer.subarray(0, read));
        size += read;
        try {
          fs.writeSync(output, buffer, 0, read);
        } catch (error) {
          throw fsFailure(error, failure.doing, failure.hint);
        }
      }
      fs.fsyncSync(output);
    } finally {
      fs.closeSync(output);
    }
    const sha256 = hash.digest('hex');
    const stored = path.join(directory, sha256);
    try {
      if (fs.existsSync(stored)) fs.rmSync(temporary, { force: true });
      else fs.renameSync(temporary, stored);
    } catch (error) {
      throw fsFailure(error, failure.doing, failure.hint);
    }
    return { stored, sha256, size };
  } catch (error) {
    removeQuietly(temporary);
    throw error;
  } finally {
    fs.closeSync(input);
  }
}

/** Statuses of an entry whose staged file may still be needed (sent again, exported, resolved). */
const UNSETTLED = ['pending', 'rejected', 'conflict'];

/**
 * Deletes the staged copy of a file entry once the server has confirmed it: `outcomeSha256` (the
 * push outcome's `sha256` for that entry) must equal the entry's own `sha256`, and no other
 * unsettled entry (pending, rejected, in conflict) may point at the same copy (two attaches of
 * one photo share it). The entry's `upload_state` becomes `attached`. Returns whether the copy
 * was deleted. Safe to call twice, and for any entry (others are left alone: false).
 *
 * For the push engine (sync/push/) to call after it settled a file entry as sent, and for
 * `outbox drop` (with `outcomeSha256` null and `dropped: true`: the entry is given up, so its
 * copy goes when no other entry needs it).
 */
export async function releaseStagedFile(knex: Knex, entry: Pick<OutboxEntry, 'id' | 'kind' | 'body'>, outcomeSha256: string | null, options: { dropped?: boolean } = {}): Promise<boolean> {
  if (entry.kind !== 'event.file' && entry.kind !== 'patrol.file') return false;
  const body = entry.body as Partial<StagedFileBody>;
  if (typeof body.stored !== 'string') return false;
  const confirmed = typeof outcomeSha256 === 'string' && outcomeSha256.toLowerCase() === String(body.sha256 ?? '').toLowerCase();
  if (!confirmed && !options.dropped) return false;
  if (confirmed) await knex('outbox').where({ id: entry.id }).update({ upload_state: 'attached' });
  if (await stillNeeded(knex, entry.id, body.stored)) return false;
  try {
    fs.rmSync(body.stored, { force: true });
  } catch {
    // A copy that cannot be removed now costs disk space only; logout --wipe removes the folder.
    return false;
  }
  return true;
}

async function stillNeeded(knex: Knex, exceptId: string, stored: string): Promise<boolean> {
  // The body is JSON text: narrow by the file name, then read each candidate's own `stored`.
  const name = path.basename(stored);
  const rows: Array<{ body: string }> = await knex('outbox')
    .whereIn('kind', ['event.file', 'patrol.file'])
    .whereIn('status', UNSETTLED)
    .whereNot({ id: exceptId })
    .where('body', 'like', `%${name.replace(/[%_\\]/g, '')}%`)
    .select('body');
  return rows.some((row) => {
    try {
      return (JSON.parse(row.body) as { stored?: unknown }).stored === stored;
    } catch {
      return true;
    }
  });
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // The failure that matters is the caller's.
  }
}
