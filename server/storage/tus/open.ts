/**
 * Resumable uploads, wired (issue 26 §6): the tus data store beside the file store, the tus
 * server over it, and the sweep that removes expired uploads. The composition root calls this.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../db/time.js';
import type { Store } from '../../domain/ports.js';
import type { FileStoreConfig } from '../../config.js';
import type { FileStore } from '../file-store.js';
import type { FileRemovals } from '../file-sweeper.js';
import { openTusDatastore } from './datastore.js';
import { TusUploads } from './server.js';
import { UploadSweep } from './sweep.js';

export async function openUploads(deps: {
  store: Store; clock: Clock; logger: Logger; files: FileStore; removals: FileRemovals;
  fileStore: FileStoreConfig; dataDir: string; maxFileBytes: number; expiryHours: number;
}): Promise<{ uploads: TusUploads; sweep: UploadSweep }> {
  const expiryMs = deps.expiryHours * 3600_000;
  const tus = await openTusDatastore(deps.fileStore, deps.dataDir, expiryMs);
  const uploads = new TusUploads({ store: deps.store, clock: deps.clock, files: deps.files, removals: deps.removals, tus, logger: deps.logger, maxFileBytes: deps.maxFileBytes, expiryMs });
  return { uploads, sweep: new UploadSweep({ store: deps.store, clock: deps.clock, tus, removals: deps.removals, logger: deps.logger }) };
}
