import path from 'node:path';
import type { Readable } from 'node:stream';
import type { DataStore } from '@tus/server';
import type { FileStoreConfig } from '../../config.js';
import { ensurePrivateDir } from '../../security/private-files.js';

/** Parts of an S3 multipart upload (the tus S3 store keeps a smaller tail as an incomplete part). */
const S3_PART_BYTES = 8 * 1024 * 1024;

/** The extensions we offer; the stores' creation-defer-length is not (every upload declares its length). */
export const TUS_EXTENSIONS = ['creation', 'creation-with-upload', 'termination', 'expiration'];

/**
 * Where unfinished uploads are received, beside the configured file store: `file:` stores in
 * `<data dir>/uploads` (a tus FileStore), `s3://` stores in the same bucket under
 * `<prefix>tus/` (a tus S3Store: a multipart upload per upload, found again by ListParts).
 * The S3 store has no key prefix of its own, so the upload's tus id carries it: `tusIdOf`
 * maps the id in the URL to the store's id, `urlIdOf` back.
 */
export interface TusDatastore {
  datastore: DataStore;
  tusIdOf(urlId: string): string;
  urlIdOf(tusId: string): string;
  /** The received bytes of a finished upload. */
  read(tusId: string): Promise<Readable>;
  /** Removes everything the store holds for an upload, finished or not; nothing there is fine. */
  remove(tusId: string): Promise<void>;
  description: string;
}

export async function openTusDatastore(config: FileStoreConfig, dataDir: string, expiryMs: number): Promise<TusDatastore> {
  if (config.kind === 'file') {
    const { FileStore } = await import('@tus/file-store');
    const directory = path.join(dataDir, 'uploads');
    await ensurePrivateDir(directory);
    // FileStore makes its folder from its constructor with a callback that throws, an uncaught
    // exception when the folder's parent goes away meanwhile (a throw-away data dir, as the
    // OpenAPI emitter's): ours is made above, private, so that step is skipped.
    const PreparedFileStore = class extends FileStore {};
    Object.defineProperty(PreparedFileStore.prototype, 'checkOrCreateDirectory', { value: () => undefined });
    const store = new PreparedFileStore({ directory, expirationPeriodInMilliseconds: expiryMs });
    store.extensions = [...TUS_EXTENSIONS];
    return {
      datastore: store,
      tusIdOf: (id) => id,
      urlIdOf: (id) => id,
      read: async (id) => store.read(id),
      remove: (id) => store.remove(id).catch(ignoreMissing),
      description: `file:${directory}`,
    };
  }
  const { S3Store } = await import('@tus/s3-store');
  const store = new S3Store({
    partSize: S3_PART_BYTES,
    expirationPeriodInMilliseconds: expiryMs,
    s3ClientConfig: {
      bucket: config.bucket,
      region: config.region,
      ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
      ...(config.credentials ? { credentials: { ...config.credentials } } : {}),
      // NOTE: as in s3-store.ts, S3-compatible servers differ in their support of CRC trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    },
  });
  store.extensions = [...TUS_EXTENSIONS];
  const prefix = `${config.prefix}tus/`;
  return {
    datastore: store,
    tusIdOf: (id) => prefix + id,
    urlIdOf: (id) => (id.startsWith(prefix) ? id.slice(prefix.length) : id),
    read: (id) => store.read(id),
    async remove(id) {
      // NOTE: S3Store.remove aborts the multipart upload first and, for a finished upload (no
      // multipart upload left), gives up with FILE_NOT_FOUND before deleting its object and
      // `.info`: so the objects are deleted here in every case (with the store's own client).
      await store.remove(id).catch(ignoreMissing);
      const client = (store as unknown as { client: { deleteObjects(input: unknown): Promise<unknown> } }).client;
      await client.deleteObjects({ Bucket: config.bucket, Delete: { Objects: [{ Key: id }, { Key: `${id}.info` }, { Key: `${id}.part` }], Quiet: true } });
    },
    description: `s3://${config.bucket}/${prefix}`,
  };
}

/** tus's answer for an upload its store does not hold (any more). */
function ignoreMissing(error: unknown): void {
  const status = (error as { status_code?: unknown } | null)?.status_code;
  if (status !== 404 && status !== 410) throw error;
}
