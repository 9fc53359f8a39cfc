import { once } from 'node:events';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PayloadTooLargeError } from '../domain/errors.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '../security/private-files.js';
import { SNIFF_BYTES, sniffContentType } from './sniff.js';

/** `put` as every store does it: stage, commit, and discard what staging left, whatever happened. */
export async function putStaged(store: Pick<FileStore, 'stage'>, source: Readable, options: { maxBytes: number }): Promise<StoredFile> {
  const staged = await store.stage(source, options);
  try {
    return await staged.commit();
  } finally {
    await staged.discard();
  }
}

/**
 * Why a stream from `openRead` failed: `missing`, the store has no bytes at that path (a disk
 * file that is gone, an S3 key with no object); `unavailable`, anything else (the bucket
 * unreachable, a disk error), which may pass. Each store's own error shapes are read here.
 */
export function readFailure(error: unknown): 'missing' | 'unavailable' {
  const failure = error as { code?: unknown; name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  if (failure?.code === 'ENOENT' || failure?.name === 'NoSuchKey' || failure?.$metadata?.httpStatusCode === 404) return 'missing';
  return 'unavailable';
}

/** What a stored file is: its content address, size, location under the root, and sniffed type. */
export interface StoredFile {
  sha256: string;
  size: number;
  /** Relative to the store's root, `/`-separated: what the database keeps. */
  path: string;
  contentType: string;
}

/**
 * A file fully received into a temporary file, hashed and fsynced, not yet in the store.
 * `commit` moves it to its content address (atomic rename); `discard` removes the temporary
 * file. Call `discard` in a `finally`: after a commit it does nothing.
 */
export interface StagedFile {
  readonly sha256: string;
  readonly size: number;
  readonly contentType: string;
  /** Absolute path of the bytes while staged (for readers such as EXIF parsing). */
  readonly tempPath: string;
  commit(): Promise<StoredFile>;
  discard(): Promise<void>;
}

/** A file found in a store by `list`. */
export interface ListedFile {
  sha256: string;
  modifiedAt: number;
}

/** An inclusive byte range of a stored file (HTTP `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The file store port (issue 17): content-addressed files, staged on local disk first (hashed,
 * sniffed, readable at `tempPath`), committed to their address, read back as streams. Both
 * implementations (DiskFileStore here, S3FileStore in s3-store.ts) pass test/storage's
 * conformance suite.
 */
export interface FileStore {
  /** Where staged uploads wait on local disk. */
  readonly tempDir: string;
  /** What and where the store is, safe for logs (no credentials). */
  readonly description: string;
  /** Receives `source` completely; more than `maxBytes` is a PayloadTooLargeError (413). */
  stage(source: Readable, options: { maxBytes: number }): Promise<StagedFile>;
  /** Stages and commits in one step. */
  put(source: Readable, options: { maxBytes: number }): Promise<StoredFile>;
  /** The bytes of a stored file (or of one range of them); a missing file errors the stream. */
  openRead(relative: string, range?: ByteRange): Readable;
  has(sha256: string): Promise<boolean>;
  /**
   * Removes the bytes stored under `sha256`; nothing when there are none. Content is shared by
   * every row (and tenant) that stored the same bytes: only the sweeper calls this, once it has
   * claimed the key and found nothing using it (server/storage/file-sweeper.ts). `signal` ends
   * a removal that has taken too long: the call then rejects, and a store that sends a request
   * aborts it (a local unlink is quick and ignores it).
   */
  remove(sha256: string, options?: { signal?: AbortSignal }): Promise<void>;
  /** Every stored file: its sha256 and when its bytes were written (whole epoch ms), in no set order. */
  list(): AsyncIterable<ListedFile>;
  /** A time-limited URL a client may fetch the bytes from directly, or null: stream them. */
  downloadUrl(relative: string, response: { disposition: string; contentType: string }): Promise<string | null>;
}

const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Content-addressed files on disk under `root`: `sha256/ab/cd/<sha256>`, written through
 * `tmp/` (temp file + fsync + rename + directory fsync), so a reader never sees a partial file
 * and an interrupted upload leaves nothing behind. The same bytes stored twice are one file.
 * Used by camera-trap reports and meant for patrol files too.
 */
export class DiskFileStore implements FileStore {
  private constructor(readonly root: string) {}

  get description(): string {
    return `file:${this.root}`;
  }

  /**
   * Removes temporary files a crashed process left behind. Directories are created on first
   * use, so a server that never stores a file leaves no trace on disk.
   */
  static async open(root: string): Promise<DiskFileStore> {
    const store = new DiskFileStore(path.resolve(root));
    const cutoff = Date.now() - STALE_TEMP_MS;
    const names = await fs.promises.readdir(store.tempDir).catch(() => [] as string[]);
    for (const name of names) {
      const file = path.join(store.tempDir, name);
      const stat = await fs.promises.stat(file).catch(() => null);
      if (stat && stat.mtimeMs < cutoff) await fs.promises.rm(file, { force: true });
    }
    return store;
  }

  get tempDir(): string {
    return path.join(this.root, 'tmp');
  }

  /** Receives `source` completely; more than `maxBytes` is a PayloadTooLargeError (413). */
  async stage(source: Readable, options: { maxBytes: number }): Promise<StagedFile> {
    await ensurePrivateDir(this.tempDir);
    const temp = path.join(this.tempDir, `${randomUUID()}.part`);
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headBytes = 0;
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > options.maxBytes) return callback(new PayloadTooLargeError(`The file is larger than ${options.maxBytes} bytes.`));
        hash.update(chunk);
        if (headBytes < SNIFF_BYTES) {
          head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
          headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
        }
        callback(null, chunk);
      },
    });
    const writer = fs.createWriteStream(temp, { flags: 'wx', mode: PRIVATE_FILE_MODE });
    try {
      await pipeline(source, meter, writer);
      await fsyncPath(temp, 'r+');
    } catch (error) {
      // A source that fails at once (over the limit in its first chunks) can reject before the
      // writer has even opened the file: wait until it is closed, or the open would create the
      // temporary file after this removal and leave it behind.
      if (!writer.closed) await once(writer, 'close').catch(() => undefined);
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    const sha256 = hash.digest('hex');
    const contentType = sniffContentType(Buffer.concat(head));
    let committed: StoredFile | null = null;
    return {
      sha256,
      size,
      contentType,
      tempPath: temp,
      commit: async () => (committed ??= await this.moveIntoPlace(temp, { sha256, size, contentType })),
      discard: async () => {
        if (!committed) await fs.promises.rm(temp, { force: true });
      },
    };
  }

  /** Stages and commits in one step. */
  put(source: Readable, options: { maxBytes: number }): Promise<StoredFile> {
    return putStaged(this, source, options);
  }

  /** Absolute path of a stored file; a relative path that escapes the root is refused. */
  absolutePath(relative: string): string {
    const absolute = path.resolve(this.root, relative);
    if (!absolute.startsWith(this.root + path.sep)) throw new Error(`Path outside the file store: ${relative}`);
    return absolute;
  }

  openRead(relative: string, range?: ByteRange): fs.ReadStream {
    return fs.createReadStream(this.absolutePath(relative), range ? { start: range.start, end: range.end } : {});
  }

  /** Disk files are always streamed by the server. */
  async downloadUrl(): Promise<string | null> {
    return null;
  }

  async has(sha256: string): Promise<boolean> {
    return fs.promises.access(this.absolutePath(relativePathOf(sha256))).then(() => true, () => false);
  }

  async remove(sha256: string): Promise<void> {
    const target = this.absolutePath(relativePathOf(sha256));
    await fs.promises.rm(target, { force: true });
    // The removal made durable, like the rename that stored it (the directory may be gone).
    await fsyncPath(path.dirname(target), 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  /** Walks `sha256/ab/cd/`; anything else under the root (`tmp/`, stray files) is not a stored file. */
  async *list(): AsyncIterable<ListedFile> {
    const top = path.join(this.root, 'sha256');
    for (const first of await hexDirs(top)) {
      for (const second of await hexDirs(path.join(top, first))) {
        const dir = path.join(top, first, second);
        for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
          if (!/^[0-9a-f]{64}$/.test(name) || !name.startsWith(first + second)) continue;
          const stat = await fs.promises.stat(path.join(dir, name)).catch(() => null);
          if (stat?.isFile()) yield { sha256: name, modifiedAt: Math.floor(stat.mtimeMs) };
        }
      }
    }
  }

  private async moveIntoPlace(temp: string, file: Omit<StoredFile, 'path'>): Promise<StoredFile> {
    const relative = relativePathOf(file.sha256);
    const target = this.absolutePath(relative);
    await ensurePrivateDir(path.dirname(target));
    // Same bytes, same name: replacing an existing copy is harmless and keeps this atomic.
    await fs.promises.rename(temp, target);
    await fsyncPath(path.dirname(target), 'r');
    return { ...file, path: relative };
  }
}

export function relativePathOf(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('Not a sha256 hex digest.');
  return ['sha256', sha256.slice(0, 2), sha256.slice(2, 4), sha256].join('/');
}

/** The two-hex-digit subdirectories of `dir` (none when it does not exist). */
async function hexDirs(dir: string): Promise<string[]> {
  const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => /^[0-9a-f]{2}$/.test(name)).sort();
}

async function fsyncPath(target: string, flags: 'r' | 'r+'): Promise<void> {
  const handle = await fs.promises.open(target, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
