import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { PassThrough, Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FileStoreConfig } from '../config.js';
import { type ByteRange, DiskFileStore, type FileStore, type ListedFile, type StagedFile, type StoredFile, putStaged, relativePathOf } from './file-store.js';

type S3Config = Extract<FileStoreConfig, { kind: 's3' }>;

/** Parts of a multipart upload (lib-storage); smaller files go up in one PUT. */
const PART_BYTES = 8 * 1024 * 1024;
const PRESIGNED_SECONDS = 300;

export class StoreVerificationError extends Error {}

/** Why the bucket cannot be used: the endpoint does not answer, the bucket does not exist, the credentials are refused, or another refusal. */
export class BucketUnavailableError extends Error {
  constructor(
    readonly reason: 'unreachable' | 'no-bucket' | 'credentials' | 'refused',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * What a local file's bytes hash to: the sha256 (its name in the store), and the two ETags an
 * S3-compatible server computes from the same bytes: the MD5 of the whole (a single PUT, and
 * some servers for multipart too) and, for a multipart upload in PART_BYTES parts, the MD5 of
 * the parts' MD5s with `-<parts>`.
 */
export interface FileDigests {
  sha256: string;
  size: number;
  md5: string;
  partsEtag: string;
}

/** Reads a local file once (streamed) and computes its FileDigests. */
export async function digestFile(localPath: string): Promise<FileDigests> {
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
  const partMd5s: Buffer[] = [];
  let part = createHash('md5');
  let inPart = 0;
  let size = 0;
  await pipeline(
    fs.createReadStream(localPath),
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        sha256.update(chunk);
        md5.update(chunk);
        size += chunk.length;
        for (let offset = 0; offset < chunk.length; ) {
          const take = Math.min(PART_BYTES - inPart, chunk.length - offset);
          part.update(chunk.subarray(offset, offset + take));
          inPart += take;
          offset += take;
          if (inPart === PART_BYTES) {
            partMd5s.push(part.digest());
            part = createHash('md5');
            inPart = 0;
          }
        }
        callback();
      },
    }),
  );
  if (inPart > 0 || partMd5s.length === 0) partMd5s.push(part.digest());
  const partsEtag = `${createHash('md5').update(Buffer.concat(partMd5s)).digest('hex')}-${partMd5s.length}`;
  return { sha256: sha256.digest('hex'), size, md5: md5.digest('hex'), partsEtag };
}

/**
 * Content-addressed files in an S3-compatible bucket, under `<prefix>sha256/ab/cd/<sha256>`
 * (the same relative path the disk store uses, so the database rows do not change with the
 * store). Uploads are staged on local disk first (hashed, sniffed; see DiskFileStore), then
 * streamed up (multipart past PART_BYTES), hashed again as they are sent, and checked on the
 * bucket: the object must have the size, the sha256 metadata and, for a single PUT, the MD5
 * ETag of what was staged; anything else is deleted and refused. An S3 object becomes
 * visible only when its PUT or its CompleteMultipartUpload succeeds, never partially. The same
 * bytes uploaded twice are one object (the second upload is skipped).
 */
export class S3FileStore implements FileStore {
  private constructor(
    private readonly client: S3Client,
    private readonly config: S3Config,
    private readonly staging: DiskFileStore,
  ) {}

  /** `stagingDir` is local scratch space (under the data dir): uploads wait there, hashed. */
  static async open(config: S3Config, stagingDir: string): Promise<S3FileStore> {
    quietNodeVersionWarning();
    const client = new S3Client({
      region: config.region,
      ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
      // A copy: the config is frozen, and the SDK annotates the credentials object it is given.
      ...(config.credentials ? { credentials: { ...config.credentials } } : {}),
      // NOTE: S3-compatible servers differ in their support of the SDK's default CRC trailers;
      // integrity is checked by us (sha256 metadata, size, MD5 ETag), so only send what is required.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return new S3FileStore(client, config, await DiskFileStore.open(stagingDir));
  }

  get tempDir(): string {
    return this.staging.tempDir;
  }

  get description(): string {
    return `s3://${this.config.bucket}/${this.config.prefix}${this.config.endpoint ? ` at ${this.config.endpoint}` : ''}`;
  }

  keyOf(relative: string): string {
    if (!/^sha256\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(relative)) throw new Error(`Not a stored file path: ${relative}`);
    return this.config.prefix + relative;
  }

  async stage(source: Readable, options: { maxBytes: number }): Promise<StagedFile> {
    const staged = await this.staging.stage(source, options);
    let committed: StoredFile | null = null;
    return {
      sha256: staged.sha256,
      size: staged.size,
      contentType: staged.contentType,
      tempPath: staged.tempPath,
      commit: async () => (committed ??= await this.upload(staged.tempPath, { sha256: staged.sha256, size: staged.size, contentType: staged.contentType })),
      // The temp file goes either way: after a commit its bytes are in the bucket.
      discard: () => staged.discard(),
    };
  }

  put(source: Readable, options: { maxBytes: number }): Promise<StoredFile> {
    return putStaged(this, source, options);
  }

  /**
   * Uploads a local file already known by its hash (also used by `admin migrate-files`). An
   * object already there with the same size and sha256 metadata is kept, unless `replace`
   * (the caller found its bytes differ: see `check`).
   */
  async upload(localPath: string, file: Omit<StoredFile, 'path'>, options: { replace?: boolean } = {}): Promise<StoredFile> {
    const relative = relativePathOf(file.sha256);
    const key = this.keyOf(relative);
    if (!options.replace && (await this.verified(key, file, null))) return { ...file, path: relative };
    const sha256 = createHash('sha256');
    const md5 = createHash('md5');
    let sent = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        sha256.update(chunk);
        md5.update(chunk);
        sent += chunk.length;
        callback(null, chunk);
      },
    });
    const body = fs.createReadStream(localPath).pipe(meter);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: key, Body: body, ContentType: 'application/octet-stream', ContentLength: file.size, Metadata: { sha256: file.sha256 } },
      partSize: PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
    await upload.done();
    // The bytes sent must be the bytes staged (the temp file may not change under us).
    if (sent !== file.size || sha256.digest('hex') !== file.sha256) {
      await this.discardObject(key);
      throw new StoreVerificationError(`The staged file changed while it was uploaded (${key}).`);
    }
    if (!(await this.verified(key, file, file.size < PART_BYTES ? md5.digest('hex') : null))) {
      await this.discardObject(key);
      throw new StoreVerificationError(`The bucket does not hold what was uploaded to ${key}.`);
    }
    return { ...file, path: relative };
  }

  /**
   * Whether the bucket holds exactly these bytes under their address: the size and sha256
   * metadata must match, and the ETag the server computed from the bytes must be one of those
   * `digests` predicts. An ETag that is neither (an encrypted bucket, another part size) is
   * settled by reading the object back and hashing it.
   */
  async check(digests: FileDigests): Promise<'verified' | 'missing' | 'different'> {
    const key = this.keyOf(relativePathOf(digests.sha256));
    const head = await this.head(key);
    if (!head) return 'missing';
    if (head.ContentLength !== digests.size || head.Metadata?.sha256 !== digests.sha256) return 'different';
    const etag = head.ETag?.replace(/"/g, '');
    if (etag === digests.md5 || etag === digests.partsEtag) return 'verified';
    const hash = createHash('sha256');
    let size = 0;
    await pipeline(
      this.openRead(relativePathOf(digests.sha256)),
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          size += chunk.length;
          callback();
        },
      }),
    );
    return size === digests.size && hash.digest('hex') === digests.sha256 ? 'verified' : 'different';
  }

  /** Fails with a BucketUnavailableError unless the bucket exists and these credentials may use it. */
  async probe(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.config.bucket }));
    } catch (error) {
      const status = (error as S3ServiceException).$metadata?.httpStatusCode;
      const name = (error as Error).name;
      if (status === 404) throw new BucketUnavailableError('no-bucket', `The bucket "${this.config.bucket}" does not exist at ${this.where}.`, { cause: error });
      if (status === 401 || status === 403 || name === 'CredentialsProviderError') {
        throw new BucketUnavailableError('credentials', `${this.where} refused the credentials for bucket "${this.config.bucket}"${status ? ` (HTTP ${status})` : ''}.`, { cause: error });
      }
      if (status === undefined) throw new BucketUnavailableError('unreachable', `Cannot reach ${this.where}: ${describeNetworkError(error)}.`, { cause: error });
      // e.g. 301: the bucket is in another region than the one asked.
      throw new BucketUnavailableError('refused', `${this.where} answered HTTP ${status}${name && name !== 'Unknown' ? ` (${name})` : ''} for bucket "${this.config.bucket}".`, { cause: error });
    }
  }

  private get where(): string {
    return this.config.endpoint ?? `AWS S3 (${this.config.region})`;
  }

  /** Whether the object exists with this size and sha256 metadata (and, when given, this MD5 ETag). */
  private async verified(key: string, file: { sha256: string; size: number }, md5: string | null): Promise<boolean> {
    const head = await this.head(key);
    if (!head) return false;
    if (head.ContentLength !== file.size || head.Metadata?.sha256 !== file.sha256) return false;
    return md5 === null || head.ETag?.replace(/"/g, '') === md5;
  }

  private async head(key: string) {
    try {
      return await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: key }));
    } catch (error) {
      if ((error as S3ServiceException).$metadata?.httpStatusCode === 404) return null;
      throw error;
    }
  }

  /** Deletes an object that failed verification; best effort (the upload fails either way). */
  private async discardObject(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key })).catch(() => undefined);
  }

  /** Streams the object; the request starts at once and its failure errors the stream. */
  openRead(relative: string, range?: ByteRange): Readable {
    const out = new PassThrough();
    const command = new GetObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(relative), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) });
    const abort = new AbortController();
    out.once('close', () => abort.abort());
    this.client.send(command, { abortSignal: abort.signal }).then(
      (response) => {
        const body = response.Body as Readable;
        body.once('error', (error) => out.destroy(error));
        body.pipe(out);
      },
      (error: Error) => out.destroy(error),
    );
    return out;
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.head(this.keyOf(relativePathOf(sha256)))) !== null;
  }

  /**
   * DeleteObject: idempotent (a missing key is a success); a refusal or an unreachable bucket
   * throws, and so does `signal` firing (the SDK's retries included): the sweeper bounds a
   * removal in time, since an upload of the same bytes may be waiting for it (leased-store.ts).
   */
  async remove(sha256: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(relativePathOf(sha256)) }), { abortSignal: options.signal });
  }

  /** The objects under `<prefix>sha256/`, a page (1000 keys) at a time; other keys are not stored files. */
  async *list(): AsyncIterable<ListedFile> {
    const under = `${this.config.prefix}sha256/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: under, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const sha256 = /^([0-9a-f]{2})\/([0-9a-f]{2})\/([0-9a-f]{64})$/.exec(object.Key?.slice(under.length) ?? '');
        if (sha256 && sha256[3]!.startsWith(sha256[1]! + sha256[2]!)) yield { sha256: sha256[3]!, modifiedAt: object.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async downloadUrl(relative: string, response: { disposition: string; contentType: string }): Promise<string | null> {
    if (!this.config.presign) return null;
    const command = new GetObjectCommand({
      Bucket: this.config.bucket, Key: this.keyOf(relative),
      ResponseContentType: response.contentType, ResponseContentDisposition: response.disposition,
    });
    return getSignedUrl(this.client, command, { expiresIn: PRESIGNED_SECONDS });
  }

  close(): void {
    this.client.destroy();
  }
}

function describeNetworkError(error: unknown): string {
  const seen = error as { code?: string; message?: string; errors?: Array<{ code?: string }> };
  return seen.code ?? seen.errors?.[0]?.code ?? seen.message ?? String(error);
}

/**
 * NOTE: on Node 20 the SDK emits a process warning, once, that its versions published after
 * January 2027 need Node 22. package-lock pins ours, so it asks nothing of an operator, and the
 * suite fails on any process warning; the SDK's own variable is its only switch.
 */
export function quietNodeVersionWarning(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
