import type { Logger } from 'pino';
import type { Clock } from '../../db/time.js';
import type { Store } from '../../domain/ports.js';
import type { FileStore } from '../file-store.js';
import type { TusDatastore } from './datastore.js';
import { crashPoint } from '../../testing/crash-points.js';
import { CHECKSUM_MISMATCH, type FileUpload } from './ports.js';

export interface FinishDeps {
  store: Store;
  clock: Clock;
  /** The fieldops file store as uploads use it (leased: server/storage/leased-store.ts). */
  files: FileStore;
  tus: TusDatastore;
  logger: Logger;
  maxFileBytes: number;
  /** How long a stored upload waits for its attach. */
  expiryMs: number;
}

/** A tus error answer: the claimed sha256 is not what arrived (the upload is removed). */
export const checksumMismatch = (claimed: string, actual: string) => ({
  status_code: CHECKSUM_MISMATCH,
  body: `Checksum Mismatch: the bytes received hash to ${actual}, not to the sha256 ${claimed} given at creation; the upload is removed, start a new one.`,
});

/**
 * Finishes a fully received upload (idempotent; called when the last byte arrived, or by a HEAD
 * that finds every byte there, completing a finish a crash interrupted): streams the received
 * bytes into the fieldops file store (hashed and sniffed on the way), compares the sha256 with
 * the one claimed at creation, and marks the row `stored` (a reference the file sweeper keeps)
 * before the file store's lease on the bytes ends. The tus copy is removed afterwards (by the
 * caller with `keepReceived`: tus reads it again before answering a creation-with-upload). A
 * mismatch marks the row `failed`, removes the received bytes and throws a 460 answer.
 * Two finishers of one upload both store the same bytes; one marks the row.
 */
export async function finishUpload(deps: FinishDeps, upload: FileUpload, options: { keepReceived?: boolean } = {}): Promise<FileUpload> {
  if (upload.state !== 'receiving') return upload;
  const tusId = deps.tus.tusIdOf(upload.id);
  let source;
  try {
    source = await deps.tus.read(tusId);
  } catch (error) {
    // Another finisher may have stored it and removed the tus copy meanwhile.
    const now = await deps.store.repos.uploads.find(upload.id);
    if (now && now.state !== 'receiving') return now;
    throw error;
  }
  const staged = await deps.files.stage(source, { maxBytes: deps.maxFileBytes });
  try {
    if (staged.sha256 !== upload.sha256Claimed || staged.size !== upload.length) {
      await deps.store.transaction((repos) => repos.uploads.markFailed(upload.id, deps.clock.now()));
      await removeReceived(deps, tusId);
      throw checksumMismatch(upload.sha256Claimed, staged.sha256);
    }
    const stored = await staged.commit();
    const at = deps.clock.now();
    await deps.store.transaction((repos) => repos.uploads.markStored(upload.id, stored, at, at + deps.expiryMs));
    // Kill tests: stored and marked, the answer (and the tus copy's removal) not yet.
    crashPoint('upload.after-store');
  } finally {
    // After the row refers to the bytes: the lease may end.
    await staged.discard();
  }
  if (!options.keepReceived) await removeReceived(deps, tusId);
  const finished = await deps.store.repos.uploads.find(upload.id);
  if (!finished) throw { status_code: 404, body: 'No such upload.' };
  return finished;
}

/** Removes an upload's received bytes from the tus store; already gone is fine. */
export async function removeReceived(deps: { tus: TusDatastore; logger: Logger }, tusId: string): Promise<void> {
  try {
    await deps.tus.remove(tusId);
  } catch (error) {
    deps.logger.warn({ err: error, upload: tusId }, 'could not remove the received bytes of an upload; the expiry sweep retries');
  }
}
