import path from 'node:path';
import type { FileStoreConfig } from '../config.js';
import { DiskFileStore, type FileStore } from './file-store.js';

/**
 * The configured file store; an S3 store stages uploads under `<data dir>/staging`. The AWS SDK
 * is loaded only when an S3 store is configured (it costs start-up time and memory otherwise).
 */
export async function openFileStore(config: FileStoreConfig, dataDir: string): Promise<FileStore> {
  if (config.kind === 'file') return DiskFileStore.open(config.dir);
  const { S3FileStore } = await import('./s3-store.js');
  return S3FileStore.open(config, path.join(dataDir, 'staging'));
}
