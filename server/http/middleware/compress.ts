import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Middleware } from '../state.js';
import { type ContentCoding, codedEtag, etagForNotModified, negotiateCoding } from '../content-coding.js';
import { serialisedJson } from '../serialised-json.js';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Types worth compressing: JSON (problem+json and other +json), text, scripts. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript|[\w.-]+\+json)(?:$|[\s;]))/i;

export interface CompressOptions {
  /** Bodies of at most this many bytes go as they are (FIELDOPS_COMPRESS_MIN_BYTES). */
  minBytes: number;
}

/**
 * Response compression (issue 25): a text or JSON body larger than `minBytes` is sent br or
 * gzip, as the request's Accept-Encoding allows (content-coding.ts), with the async zlib API
 * (on libuv's pool, so the event loop is never held by a big body), brotli quality 5 and gzip
 * level 6 up to LARGE_BODY, brotli 4 and gzip 4 above it (see `compress`). Runs outside the
 * profile step and the error mapping, so it sees the final body.
 *
 * - `Vary: Accept-Encoding` on every compressible response, compressed or not, and on 304s.
 * - A strong ETag of a compressed body becomes `"<tag>-br"` / `"<tag>-gzip"` (RFC 9110
 *   §8.8.3); a 304 repeats the coded tag the client sent. Preconditions strip the suffix.
 * - Left alone: HEAD, 1xx/204/304, bodies already coded, partial content and attachments
 *   (file downloads: they are streams, with ranges), and every stream (unbounded).
 */
export function compressResponses(options: CompressOptions): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status === 304) {
      ctx.vary('Accept-Encoding');
      const etag = ctx.response.get('ETag');
      if (etag) ctx.set('ETag', etagForNotModified(ctx.get('If-None-Match'), etag));
      return;
    }
    const type = ctx.response.get('Content-Type');
    if (!COMPRESSIBLE.test(type)) return;
    ctx.vary('Accept-Encoding');
    if (ctx.method === 'HEAD' || ctx.status < 200 || ctx.status === 204) return;
    if (ctx.response.get('Content-Encoding') || ctx.response.get('Content-Range') || /^\s*attachment/i.test(ctx.response.get('Content-Disposition'))) return;
    const coding = negotiateCoding(ctx.get('Accept-Encoding'));
    if (coding === null) {
      const ready = serialisedJson(ctx.body);
      if (ready) {
        ctx.body = ready;
        ctx.set('Content-Type', type);
      }
      return;
    }
    const body = ctx.body;
    const bytes = bodyBytes(body);
    if (bytes === null) return;
    if (bytes.length <= options.minBytes) {
      // Serialised already: Koa would only do it again.
      if (!Buffer.isBuffer(body) && typeof body !== 'string') ctx.body = bytes;
      ctx.set('Content-Type', type);
      return;
    }
    let coded: Buffer;
    try {
      coded = await compress(coding, bytes);
    } catch (error) {
      ctx.state.log.warn({ err: error, coding }, 'response compression failed; sent uncompressed');
      return;
    }
    ctx.body = coded;
    ctx.set('Content-Type', type);
    ctx.set('Content-Encoding', coding);
    const etag = ctx.response.get('ETag');
    if (etag) ctx.set('ETag', codedEtag(etag, coding));
  };
}

/**
 * Bodies above this many bytes are compressed at the faster levels. Measured on a 1 MB feed
 * page of 1,000 events (issue 25's read rate): brotli 5 takes 7.7 ms for 90 kB, 4 takes 3.5 ms
 * for 98 kB; gzip 6 takes 6.1 ms for 111 kB, 4 takes 3.6 ms for 119 kB. At that size the
 * time saved is worth more than the 7-9% bytes; below it both costs are small.
 */
export const LARGE_BODY = 128 * 1024;

function compress(coding: ContentCoding, bytes: Buffer): Promise<Buffer> {
  const large = bytes.length > LARGE_BODY;
  if (coding === 'gzip') return gzip(bytes, { level: large ? 4 : 6 });
  return brotli(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: large ? 4 : 5,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/** The bytes Koa would send, or null for what cannot be bounded (streams) or has no body. */
function bodyBytes(body: unknown): Buffer | null {
  if (body === null || body === undefined) return null;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return null;
  // Koa 3's other body kinds: web streams and blobs (unbounded or binary), typed arrays.
  if (body instanceof ReadableStream || body instanceof Blob || body instanceof Response || ArrayBuffer.isView(body) || body instanceof ArrayBuffer) return null;
  if (typeof body === 'object') {
    const ready = serialisedJson(body);
    if (ready) return ready;
    // What Koa's respond() would write for an object body (application.js: JSON.stringify).
    const text = JSON.stringify(body);
    return text === undefined ? null : Buffer.from(text, 'utf8');
  }
  return null;
}
