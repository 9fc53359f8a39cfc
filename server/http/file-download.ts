import type { Readable } from 'node:stream';
import { NotFoundError, UnavailableError } from '../domain/errors.js';
import { type ByteRange, type FileStore, readFailure } from '../storage/file-store.js';
import type { AppContext } from './state.js';

/** What a download needs to know of a stored file. */
export interface Downloadable {
  path: string;
  size: number;
  contentType: string;
  /** The whole Content-Disposition value. */
  disposition: string;
}

/**
 * Answers with a stored file's bytes: a 302 to a presigned URL when the store gives one
 * (FIELDOPS_S3_PRESIGN), else streamed, with single-range `Range` support (206; 416 when the
 * range is outside the file). Several ranges, or an `If-Range`, get the whole file (200),
 * which RFC 9110 §14.2 allows. Always a download, never rendered inline (no stored XSS).
 */
export async function sendStoredFile(ctx: AppContext, files: FileStore, file: Downloadable): Promise<void> {
  ctx.set('Cache-Control', 'private, max-age=0');
  const url = await files.downloadUrl(file.path, { disposition: file.disposition, contentType: file.contentType });
  if (url) {
    ctx.set('Cache-Control', 'private, no-store');
    ctx.redirect(url);
    return;
  }
  const header = ctx.get('Range');
  const range = header && !ctx.get('If-Range') ? parseRange(header, file.size) : null;
  if (range === 'unsatisfiable') {
    ctx.status = 416;
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('Content-Range', `bytes */${file.size}`);
    ctx.body = '';
    return;
  }
  // The bytes are reached before any header is set: bytes that cannot be read are an error
  // answer with the contract's body, not a 200 whose connection is cut.
  const body = await opened(ctx, files.openRead(file.path, range ?? undefined), file.path);
  ctx.set('Content-Type', file.contentType);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Disposition', file.disposition);
  ctx.set('Accept-Ranges', 'bytes');
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    ctx.set('Content-Length', String(range.end - range.start + 1));
  } else {
    ctx.set('Content-Length', String(file.size));
  }
  ctx.body = body;
}

/**
 * The stream once its first bytes (or its end) have come. A file whose bytes the store does not
 * have is 404 (and logged: the database refers to them); a store that cannot be read now, 503.
 */
async function opened(ctx: AppContext, stream: Readable, path: string): Promise<Readable> {
  try {
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        stream.off('readable', ready);
        stream.off('end', ready);
        stream.off('error', settle);
        if (error) reject(error);
        else resolve();
      };
      const ready = () => settle();
      stream.once('readable', ready);
      stream.once('end', ready);
      stream.once('error', settle);
    });
    return stream;
  } catch (error) {
    stream.destroy();
    if (readFailure(error) === 'missing') {
      ctx.state.log.error({ path }, 'a file\'s stored bytes are missing from the file store');
      throw new NotFoundError('The content of this file is missing from the file store; it has been logged.');
    }
    ctx.state.log.warn({ err: error, path }, 'the file store could not be read');
    throw new UnavailableError('The file store cannot be read now; try again shortly.', 1);
  }
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n`; null (serve it all) for anything else, or several ranges. */
export function parseRange(header: string, size: number): ByteRange | 'unsatisfiable' | null {
  const match = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end };
}
