/**
 * Where a file entry's resumable upload stands, in the entry's own outbox row (the `upload_*`
 * columns of migrations/mirror/20261128_0101_offline_writes.ts), and the server's advertised
 * upload limit (`mirror_identity.upload_max_bytes`).
 *
 * Contract (sync/push/uploads.ts relies on it):
 * - `upload_url` is written, in its own transaction, as soon as the server answered the creation
 *   and before any PATCH: a kill after that resumes the same upload, never starts a second one;
 * - `upload_offset` is what the server acknowledged last, written in a small transaction after
 *   each acknowledged chunk. It is a hint: the server's `Upload-Offset` (HEAD) is the truth;
 * - `upload_state`: null (not begun), `creating` (a creation was sent, its answer not yet
 *   stored: the next one asks without a body, since the server may have it), `receiving`,
 *   `stored` (the server holds the whole file, hash checked), `attached` (the attach succeeded;
 *   see attachments.ts `releaseStagedFile`).
 */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export type UploadState = 'creating' | 'receiving' | 'stored' | 'attached';

export interface UploadProgress {
  url: string | null;
  offset: number;
  size: number | null;
  sha256: string | null;
  state: UploadState | null;
}

interface Row {
  upload_url: string | null;
  upload_offset: number | string | null;
  upload_size: number | string | null;
  upload_sha256: string | null;
  upload_state: string | null;
}

const num = (v: number | string | null) => (v === null || v === undefined ? null : Number(v));

export async function readUpload(db: Db, entryId: string): Promise<UploadProgress | null> {
  const row = (await db('outbox').where({ id: entryId }).first('upload_url', 'upload_offset', 'upload_size', 'upload_sha256', 'upload_state')) as Row | undefined;
  if (!row) return null;
  return { url: row.upload_url, offset: num(row.upload_offset) ?? 0, size: num(row.upload_size), sha256: row.upload_sha256, state: (row.upload_state as UploadState | null) ?? null };
}

/** A creation is about to be sent (written before it, so a kill meanwhile is known). */
export async function saveUploadCreating(knex: Knex, entryId: string): Promise<void> {
  await knex('outbox').where({ id: entryId }).update({ upload_state: 'creating' });
}

/** The creation answered: its URL and the offset it acknowledged (creation-with-upload). */
export async function saveUploadCreated(knex: Knex, entryId: string, upload: { url: string; offset: number; size: number; sha256: string }): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('outbox').where({ id: entryId }).update({
      upload_url: upload.url, upload_offset: upload.offset, upload_size: upload.size, upload_sha256: upload.sha256, upload_state: 'receiving',
    });
  });
}

/** An acknowledged offset; never moves the stored hint backwards past what the server said. */
export async function saveUploadOffset(knex: Knex, entryId: string, offset: number): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('outbox').where({ id: entryId }).update({ upload_offset: offset });
  });
}

/** The server holds the whole file and its hash matched the claim. */
export async function saveUploadStored(knex: Knex, entryId: string, upload: { offset: number; sha256: string }): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('outbox').where({ id: entryId }).update({ upload_offset: upload.offset, upload_sha256: upload.sha256, upload_state: 'stored' });
  });
}

/** The server no longer knows the upload (expired, removed): the next attempt creates it anew. */
export async function forgetUpload(knex: Knex, entryId: string): Promise<void> {
  await knex('outbox').where({ id: entryId }).update({ upload_url: null, upload_offset: null, upload_state: null });
}

const MAX_KEY = 'upload_max_bytes';

/** The server's `Tus-Max-Size` from the last OPTIONS, or null when never asked (or not advertised). */
export async function readUploadMaxBytes(db: Db): Promise<number | null> {
  const row = (await db('mirror_identity').where({ key: MAX_KEY }).first('value')) as { value: string } | undefined;
  const value = row ? Number(row.value) : NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

export async function saveUploadMaxBytes(db: Db, bytes: number | null): Promise<void> {
  if (bytes === null) await db('mirror_identity').where({ key: MAX_KEY }).delete();
  else await db('mirror_identity').insert({ key: MAX_KEY, value: String(bytes) }).onConflict('key').merge();
}
