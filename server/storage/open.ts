import path from 'node:path';
import type { FileStoreConfig } from '../config.js';
import { DiskFileStore, type FileStore } from './file-store.js';
import { S3FileStore } from './s3-store.js';

/** The configured file store; an S3 store stages uploads under `<data dir>/staging`. */
export async function openFileStore(config: FileStoreConfig, dataDir: string): Promise<FileStore> {
  if (config.kind === 'file') return DiskFileStore.open(config.dir);
  return S3FileStore.open(config, path.join(dataDir, 'staging'));
}
