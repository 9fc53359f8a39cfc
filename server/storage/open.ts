import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { FileStoreConfig } from '../config.js';
import { translated } from '../db/errors.js';
import { KnexStoredFileRepository } from '../db/repositories/stored-files.js';
import type { Clock } from '../db/time.js';
import { DiskFileStore, type FileStore } from './file-store.js';
import { FileSweeper } from './file-sweeper.js';
import { LeasedFileStore } from './leased-store.js';

/**
 * The configured file store; an S3 store stages uploads under `<data dir>/staging`. The AWS SDK
 * is loaded only when an S3 store is configured (it costs start-up time and memory otherwise).
 */
export async function openFileStore(config: FileStoreConfig, dataDir: string): Promise<FileStore> {
  if (config.kind === 'file') return DiskFileStore.open(config.dir);
  const { S3FileStore } = await import('./s3-store.js');
  return S3FileStore.open(config, path.join(dataDir, 'staging'));
}

/**
 * The store as uploads use it (each commit leased until its transaction is over) and the
 * sweeper that removes bytes nothing refers to, both over the database `knex` (issue 24).
 */
export function withRemovals(store: FileStore, deps: { knex: Knex; clock: Clock; logger: Logger; graceSeconds: number }): { files: LeasedFileStore; sweeper: FileSweeper } {
  const repository = translated(new KnexStoredFileRepository(deps.knex));
  const graceMs = deps.graceSeconds * 1000;
  return {
    files: new LeasedFileStore(store, { repository, clock: deps.clock, logger: deps.logger, graceMs }),
    sweeper: new FileSweeper({ repository, files: store, clock: deps.clock, logger: deps.logger, graceMs }),
  };
}
