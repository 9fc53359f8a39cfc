import { STATUS_CODES } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Metadata } from '@tus/server';
import { DomainError, InputError, NotFoundError, PayloadTooLargeError, PreconditionFailedError, UnsupportedMediaTypeError, ConflictError } from '../../domain/errors.js';
import { type TusUploads, type UploadCaller, readMetadata } from '../../storage/tus/server.js';
import { CHECKSUM_MISMATCH, FILE_SHA256_HEADER, type FileUpload, UPLOADS_PATH } from '../../storage/tus/ports.js';
import { crashPoint } from '../../testing/crash-points.js';
import { errorBody } from '../error-body.js';
import { IdempotencyKeyReusedError, deviceIdOf, parseIdempotencyKey } from '../middleware/idempotency.js';
import { requestContext, type AppContext } from '../state.js';
import { TooManyUploadsError, type UploadSlots } from '../upload-slots.js';

const TUS_VERSION = '1.0.0';
const OFFSET_STREAM = 'application/offset+octet-stream';
const WHOLE_NUMBER = /^\d{1,16}$/;

/** The received bytes do not hash to the sha256 claimed at creation (tus checksum extension: 460). */
class ChecksumMismatchError extends DomainError {
  readonly code = 'checksum_mismatch';
  readonly status = CHECKSUM_MISMATCH;
}

/** The upload failed its checksum and its bytes were removed. */
class UploadGoneError extends DomainError {
  readonly code = 'upload_gone';
  readonly status = 410;
}

/**
 * The tus endpoint (`/api/fieldops/v1/uploads`, docs/design/offline-writes-plan.md §6): checks
 * what fieldops requires (credentials, Tus-Resumable, a declared length within the limit,
 * `filename` and `sha256` metadata, offsets, the media type, the caller owning the upload),
 * answers what the rows know (a repeated creation, a stored upload), and hands the rest to tus
 * as a web Request. tus's error answers are given the contract's error body; success answers
 * keep tus's headers, plus `Fieldops-File-Sha256` once the upload is stored.
 */
export function uploadHandlers(deps: { uploads: TusUploads; slots: UploadSlots }) {
  const { uploads } = deps;
  return {
    async options(ctx: AppContext) {
      await respond(ctx, await uploads.handle(webRequest(ctx, false), null));
    },

    async create(ctx: AppContext) {
      const caller = callerOf(ctx, uploads, true);
      if (ctx.get('Upload-Defer-Length')) throw InputError.field('Upload-Length', 'required', 'Deferred lengths are not supported: send Upload-Length.');
      const lengthText = ctx.get('Upload-Length');
      if (!WHOLE_NUMBER.test(lengthText)) throw InputError.field('Upload-Length', 'invalid', 'Upload-Length must be the file\'s size in bytes.', ['For example Upload-Length: 1048576.']);
      const length = Number(lengthText);
      if (length > uploads.maxFileBytes) {
        ctx.set('Connection', 'close');
        throw new PayloadTooLargeError(`The file is larger than ${uploads.maxFileBytes} bytes (Tus-Max-Size).`);
      }
      const claim = parseMetadata(ctx.get('Upload-Metadata'));
      if (caller.clientKey) {
        const existing = await uploads.byClientKey(caller, caller.clientKey);
        if (existing) {
          if (existing.length !== length || existing.sha256Claimed !== claim.sha256 || existing.filename !== claim.filename) {
            throw new IdempotencyKeyReusedError('This Idempotency-Key was used to create another upload.');
          }
          // The same creation again (its answer was lost): where it is and how far it got. A body
          // sent with it is not read (the client continues with PATCH from the offset).
          if (ctx.req.headers['content-length'] !== '0') ctx.set('Connection', 'close');
          ctx.set('Location', `${UPLOADS_PATH}/${existing.id}`);
          await answerState(ctx, uploads, existing, 201);
          return;
        }
      }
      const carriesBody = mediaType(ctx) === OFFSET_STREAM;
      const release = carriesBody ? takeSlot(ctx, deps.slots) : () => undefined;
      try {
        await respond(ctx, await uploads.handle(webRequest(ctx, true), caller));
      } finally {
        release();
      }
    },

    /** HEAD (and GET, answered the same way: headers only). */
    async head(ctx: AppContext) {
      const caller = callerOf(ctx, uploads, false);
      ctx.set('Cache-Control', 'no-store');
      const upload = await ownedUpload(ctx, uploads, caller);
      if (upload.state !== 'receiving') return answerState(ctx, uploads, upload, 200);
      const response = await uploads.handle(webRequest(ctx, false, 'HEAD'), caller);
      if (response.status === 200 && Number(response.headers.get('upload-offset')) === upload.length) {
        // Every byte is there but the finish did not happen (the process died, or it failed): now.
        await response.body?.cancel();
        return answerState(ctx, uploads, await finish(uploads, upload), 200);
      }
      if (response.status === 404) {
        // A PATCH's finish may have stored the upload and removed its received copy between the
        // row read above and tus's own read: the row, read again, says so.
        const now = await ownedUpload(ctx, uploads, caller);
        if (now.state !== 'receiving') {
          await response.body?.cancel();
          return answerState(ctx, uploads, now, 200);
        }
      }
      await respond(ctx, response);
    },

    async patch(ctx: AppContext) {
      const caller = callerOf(ctx, uploads, false);
      if (mediaType(ctx) !== OFFSET_STREAM) throw new UnsupportedMediaTypeError(`A PATCH carries Content-Type: ${OFFSET_STREAM}.`);
      const offsetText = ctx.get('Upload-Offset');
      if (!WHOLE_NUMBER.test(offsetText)) throw InputError.field('Upload-Offset', 'invalid', 'Upload-Offset must be the number of bytes already received (HEAD gives it).');
      const upload = await ownedUpload(ctx, uploads, caller);
      if (upload.state !== 'receiving') {
        if (ctx.req.headers['content-length'] !== '0') ctx.set('Connection', 'close');
        // Complete already: a PATCH whose answer was lost is answered again; any other offset conflicts.
        if (Number(offsetText) !== upload.length) throw new ConflictError(`Upload-Offset conflict: the upload is complete at ${upload.length} bytes.`);
        return answerState(ctx, uploads, upload, 204);
      }
      const release = takeSlot(ctx, deps.slots);
      try {
        await respond(ctx, await uploads.handle(webRequest(ctx, true, ctx.method, MID_PATCH), caller));
      } finally {
        release();
      }
    },

    async remove(ctx: AppContext) {
      const caller = callerOf(ctx, uploads, false);
      const upload = await ownedUpload(ctx, uploads, caller);
      if (upload.state === 'receiving') {
        const response = await uploads.handle(webRequest(ctx, false), caller);
        if (![204, 404, 410].includes(response.status)) return respond(ctx, response);
        await response.body?.cancel();
      }
      await uploads.terminate(upload);
      ctx.status = 204;
      ctx.body = null;
    },
  };
}

/** Who calls (403 without a file permission), with the tus version checked (412) and the device and key read. */
function callerOf(ctx: AppContext, uploads: TusUploads, creation: boolean): UploadCaller {
  ctx.set('Tus-Resumable', TUS_VERSION);
  let clientKey: string | null = null;
  const raw = ctx.req.headers['idempotency-key'];
  if (creation && raw !== undefined) {
    clientKey = typeof raw === 'string' ? parseIdempotencyKey(raw) : null;
    if (clientKey === null) throw InputError.field('idempotency_key', 'invalid', 'Expected 1 to 255 visible ASCII characters.', ['Send one key per request, such as a UUID.']);
  }
  const caller = uploads.caller(requestContext(ctx), { deviceId: deviceIdOf(ctx), clientKey });
  if (ctx.get('Tus-Resumable') !== TUS_VERSION) {
    ctx.set('Tus-Version', TUS_VERSION);
    throw new PreconditionFailedError(`Send Tus-Resumable: ${TUS_VERSION}.`);
  }
  return caller;
}

async function ownedUpload(ctx: AppContext, uploads: TusUploads, caller: UploadCaller): Promise<FileUpload> {
  const upload = await uploads.owned(caller, String(ctx.params.upload ?? ''));
  if (!upload) throw new NotFoundError('No such upload.');
  return upload;
}

/** The answer about an upload from its row: offset, length, expiry while receiving, sha256 once stored. */
async function answerState(ctx: AppContext, uploads: TusUploads, upload: FileUpload, status: number): Promise<void> {
  if (upload.state === 'failed') throw new UploadGoneError('The upload failed its checksum and was removed; upload the file again.');
  ctx.set('Upload-Offset', String(await uploads.offsetOf(upload)));
  ctx.set('Upload-Length', String(upload.length));
  if (upload.state === 'receiving') ctx.set('Upload-Expires', uploads.expiresAt(upload));
  else ctx.set(FILE_SHA256_HEADER, upload.sha256 ?? '');
  ctx.status = status;
  ctx.body = status === 204 ? null : '';
}

async function finish(uploads: TusUploads, upload: FileUpload): Promise<FileUpload> {
  try {
    return await uploads.finish(upload);
  } catch (error) {
    const failure = error as { status_code?: unknown; body?: unknown } | null;
    if (failure?.status_code === CHECKSUM_MISMATCH) throw new ChecksumMismatchError(String(failure.body));
    throw error;
  }
}

function parseMetadata(header: string): { filename: string; sha256: string } {
  try {
    return readMetadata(Metadata.parse(header || undefined));
  } catch (error) {
    const body = (error as { body?: unknown } | null)?.body;
    throw InputError.field('Upload-Metadata', 'invalid', typeof body === 'string' ? body : 'Upload-Metadata is not valid: comma-separated `key base64value` pairs.', [
      'Send at least: filename <base64 of the name>,sha256 <base64 of the 64 hex digits>.',
    ]);
  }
}

function takeSlot(ctx: AppContext, slots: UploadSlots): () => void {
  try {
    return slots.acquire(ctx.state.principal!);
  } catch (error) {
    ctx.set('Connection', 'close');
    if (error instanceof TooManyUploadsError) ctx.set('Retry-After', '5');
    throw error;
  }
}

function mediaType(ctx: AppContext): string {
  return (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
}

/** The Koa request as tus reads it: method, headers, path, and (POST, PATCH) the body as a stream. */
function webRequest(ctx: AppContext, withBody: boolean, method = ctx.method, midBody?: typeof MID_PATCH): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (withBody) {
    init.body = bodyOf(ctx.req, midBody);
    init.duplex = 'half';
  }
  return new Request(`http://localhost${ctx.path}`, init);
}

/** Kill tests: the server dies once a PATCH's body has passed 1 MiB (bytes on their way to the store). */
const MID_PATCH = { at: 1024 * 1024, run: () => crashPoint('upload.mid-patch') };

/** Bytes a body stream holds before it stops reading the socket (what a cut may lose). */
const BODY_BUFFER_BYTES = 1024 * 1024;

/**
 * The request body as a web stream that ends, rather than errors, when the client goes away
 * mid-body: a cut link's bytes that did arrive are written, and the upload resumes after them.
 * (An errored stream drops what it holds; `Readable.toWeb` errors it.) A cut upload is never
 * taken for a finished one: that needs every declared byte.
 */
function bodyOf(req: IncomingMessage, midBody?: typeof MID_PATCH): ReadableStream<Uint8Array> {
  let done = false;
  let received = 0;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const end = () => {
          if (done) return;
          done = true;
          controller.close();
        };
        req.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (midBody && received < midBody.at && (received += chunk.byteLength) >= midBody.at) midBody.run();
          if ((controller.desiredSize ?? 1) <= 0) req.pause();
        });
        req.on('end', end);
        req.on('error', end);
        req.on('close', end);
      },
      pull() {
        req.resume();
      },
      cancel() {
        done = true;
        req.resume();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: BODY_BUFFER_BYTES }),
  );
}

/** tus's answer as ours: its status and headers; an error's text becomes the contract's error body. */
async function respond(ctx: AppContext, response: Response): Promise<void> {
  for (const [name, value] of response.headers) {
    if (name !== 'content-length' && name !== 'content-type' && name !== 'connection') ctx.set(name, value);
  }
  if (response.headers.get('connection') === 'close') ctx.set('Connection', 'close');
  ctx.status = response.status;
  if (response.status < 400) {
    await response.body?.cancel();
    ctx.body = response.status === 204 ? null : '';
    return;
  }
  const text = (await response.text()).trim();
  if (response.status === 412) ctx.set('Tus-Version', TUS_VERSION);
  if (response.status >= 500 && (ctx.req.destroyed || ctx.req.socket?.destroyed)) {
    // The client went away mid-body (a cut link): what arrived is kept; nobody reads this answer.
    ctx.state.log.info({ tus: text }, 'upload request cut; the bytes received are kept');
    ctx.status = 400;
    ctx.body = errorBody(400, 'The request was cut before its body was complete; HEAD gives the offset to resume from.');
    return;
  }
  if (response.status >= 500) {
    ctx.state.log.error({ status: response.status, tus: text }, 'upload failed');
    ctx.body = errorBody(response.status, 'An internal error occurred; it has been logged with this request id.');
    return;
  }
  ctx.body = errorBody(response.status, text || STATUS_CODES[response.status] || 'Error');
}
