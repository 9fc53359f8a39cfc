import type { ByteRange, FileStore } from '../storage/file-store.js';
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
  ctx.set('Content-Type', file.contentType);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Disposition', file.disposition);
  ctx.set('Accept-Ranges', 'bytes');
  const header = ctx.get('Range');
  const range = header && !ctx.get('If-Range') ? parseRange(header, file.size) : null;
  if (range === 'unsatisfiable') {
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${file.size}`);
    ctx.body = '';
    return;
  }
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    ctx.set('Content-Length', String(range.end - range.start + 1));
    ctx.body = files.openRead(file.path, range);
    return;
  }
  ctx.set('Content-Length', String(file.size));
  ctx.body = files.openRead(file.path);
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
