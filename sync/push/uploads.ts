/**
 * The resumable upload client (tus 1.0, issue 26 §6) on our own transport, so its requests are
 * authorised, counted and retried like the rest (tus-js-client brings its own HTTP stack).
 *
 * `uploadFile(entry, deps)` sends a file entry's staged copy to `/api/fieldops/v1/uploads`:
 * 1. a POST creates the upload with the first chunk (creation-with-upload), its Idempotency-Key
 *    the entry's id, so a creation repeated after a lost answer gets the same upload back; the
 *    Location is stored in the outbox row before any PATCH (uploads-store.ts);
 * 2. PATCHes send the rest in `chunkBytes` (8 MiB) pieces; each acknowledged `Upload-Offset` is
 *    stored in a small mirror transaction;
 * 3. after a cut link (or a kill: the next push starts here) a HEAD asks the server where the
 *    upload stands: the server's offset is the truth, the stored one only a hint. So a cut costs
 *    the bytes in flight at most (tus keeps what arrived), never the file again;
 * 4. the server hashes the whole file when the last byte arrives and answers with
 *    `Fieldops-File-Sha256`; a mismatch with the claimed sha256 is a 460.
 * It returns the upload's id (what an attach entry's body names) and the confirmed sha256.
 *
 * Failures: `UploadRefused` means this entry cannot be uploaded as it is (too large, checksum
 * mismatch, staged copy missing, refused by the server): reject the entry. Anything else (a
 * `TransportError` after the bounded attempts, a `ClientFailure` for auth or an older server)
 * stops the push; the next one resumes.
 */
import fs from 'node:fs';
import type { Knex } from 'knex';
import { failure } from '../errors.js';
import { describeErrorBody } from '../http-errors.js';
import { TransportError, header, type Transport, type TransportRequest, type TransportResponse } from '../http.js';
import { FILE_SHA256_HEADER as SHA256_HEADER, TUS_VERSION, UPLOADS_PATH } from '../../protocol/uploads.js';
import { sleep } from '../retry.js';
import type { StagedFileBody } from '../outbox/attachments.js';
import type { OutboxEntry } from '../outbox/model.js';
import { crashPoint } from '../testing/crash-points.js';
import { forgetUpload, readUpload, saveUploadCreated, saveUploadCreating, saveUploadMaxBytes, saveUploadOffset, saveUploadStored } from '../outbox/uploads-store.js';

export { UPLOADS_PATH };
export const UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024;
/**
 * The PATCH size when `deps.chunkBytes` is not given: FIELDOPS_UPLOAD_CHUNK_BYTES (64 KiB at
 * least; for tests and very poor links) or 8 MiB.
 */
function defaultChunkBytes(): number {
  const configured = Number(process.env.FIELDOPS_UPLOAD_CHUNK_BYTES);
  return Number.isSafeInteger(configured) && configured >= 64 * 1024 ? configured : UPLOAD_CHUNK_BYTES;
}
/** The server's answer naming the stored file's content hash (header names are read lowercased). */
export const FILE_SHA256_HEADER = SHA256_HEADER.toLowerCase();
const TUS = { 'tus-resumable': TUS_VERSION };
const OCTETS = 'application/offset+octet-stream';

export interface UploadDeps {
  /** Authorised (and retrying) transport of the connection. */
  transport: Transport;
  /** The server's base URL (`https://host:port`). */
  server: string;
  /** The mirror: the outbox row's `upload_*` columns, `mirror_identity.upload_max_bytes`. */
  knex: Knex;
  chunkBytes?: number;
  /** Failed exchanges in a row (no byte acknowledged in between) before giving up; default 4. */
  attempts?: number;
  /** Pause before resuming after a failure, doubled each time; default 250 ms. */
  retryDelayMs?: number;
  /** Once fired no request starts (the push's first Ctrl-C). */
  stop?: AbortSignal;
  /** Abandons the request in flight (the second Ctrl-C). */
  signal?: AbortSignal;
  onProgress?: (progress: { entry: string; offset: number; size: number }) => void;
}

export interface UploadedFile {
  /** The upload's id (the last segment of its Location): the attach body's `upload`. */
  upload: string;
  /** The content hash the server confirmed. */
  sha256: string;
  url: string;
}

export type UploadRefusal = 'too_large' | 'checksum_mismatch' | 'staged_missing' | 'refused';

/** This entry cannot be uploaded as it is; the push rejects it with `message` and `hint`. */
export class UploadRefused extends Error {
  constructor(
    readonly code: UploadRefusal,
    message: string,
    readonly hint: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'UploadRefused';
  }
}

/** Where the server stands, from a creation, PATCH or HEAD answer. */
interface Standing {
  offset: number;
  sha256: string | null;
}

const limits = new WeakMap<UploadDeps, Promise<number | null>>();

/**
 * OPTIONS on the uploads endpoint: the server's `Tus-Max-Size` (stored in the mirror, so
 * `events attach` can check it offline), once per `deps`. A server without the endpoint (404:
 * older than resumable uploads) is a ClientFailure.
 */
export function uploadLimit(deps: UploadDeps): Promise<number | null> {
  let known = limits.get(deps);
  if (!known) {
    known = (async () => {
      const response = await send(deps, { method: 'OPTIONS', url: `${deps.server}${UPLOADS_PATH}`, headers: { ...TUS }, repeatable: true });
      if (response.status === 404) throw failure('server', `${deps.server} takes no resumable uploads (it is older than this fieldops)`, 'upgrade the server, or drop the file entries (`fieldops outbox drop <id>`)');
      if (response.status >= 300) throw failure('server', `the server answered ${response.status} to OPTIONS ${UPLOADS_PATH}${detail(response)}`, 'try again later');
      const advertised = Number(header(response, 'tus-max-size'));
      const max = Number.isSafeInteger(advertised) && advertised > 0 ? advertised : null;
      await saveUploadMaxBytes(deps.knex, max);
      return max;
    })();
    limits.set(deps, known);
    known.catch(() => limits.delete(deps));
  }
  return known;
}

export async function uploadFile(entry: Pick<OutboxEntry, 'id' | 'kind' | 'body'>, deps: UploadDeps): Promise<UploadedFile> {
  const file = fileOf(entry);
  const done = await readUpload(deps.knex, entry.id);
  if (done?.url && (done.state === 'stored' || done.state === 'attached')) return uploaded(done.url, done.sha256 ?? file.sha256);
  checkStaged(file);

  const attempts = Math.max(1, deps.attempts ?? 4);
  const chunk = Math.max(1, deps.chunkBytes ?? defaultChunkBytes());
  let url = done?.url ?? null;
  // null: unknown, ask the server (HEAD) before sending anything.
  let offset: number | null = null;
  let failures = 0;
  let recreated = false;
  // An earlier creation may have reached the server: ask again without a body (see `create`).
  let probe = done?.state === 'creating';
  let lastFailureAt = -1;
  let confirmAsked = false;
  for (;;) {
    try {
      if (deps.stop?.aborted) throw new TransportError('interrupted', deps.server, 'ABORTED');
      let standing: Standing;
      if (url === null) {
        const max = await uploadLimit(deps);
        if (max !== null && file.size > max) throw tooLarge(file, max);
        if (!probe) await saveUploadCreating(deps.knex, entry.id);
        const created = await create(entry.id, file, deps, probe ? 0 : chunk).catch((error: unknown) => {
          probe = true;
          throw error;
        });
        url = created.url;
        // Kill tests: the server created the upload, the mirror does not know where yet.
        crashPoint('upload.after-create');
        await saveUploadCreated(deps.knex, entry.id, { url, offset: created.offset, size: file.size, sha256: file.sha256 });
        if (probe && created.sha256 === null) {
          // A repeated creation answers from the upload's record, while the request cut earlier may
          // still be writing: a HEAD (which waits for the upload's lock) says where it really ends.
          probe = false;
          continue;
        }
        standing = created;
      } else if (offset === null) {
        const head = await send(deps, { method: 'HEAD', url, headers: { ...TUS, 'cache-control': 'no-store' }, repeatable: true });
        if (head.status !== 200 && head.status !== 204) throw answerFailure(head, 'HEAD');
        standing = standingOf(head, file);
        await saveUploadOffset(deps.knex, entry.id, standing.offset);
      } else {
        standing = await patch(url, offset, file, deps, chunk);
        // Kill tests: a chunk acknowledged, its offset not stored (then stored).
        crashPoint('upload.before-offset-save');
        await saveUploadOffset(deps.knex, entry.id, standing.offset);
        crashPoint('upload.after-chunk');
      }
      offset = standing.offset;
      deps.onProgress?.({ entry: entry.id, offset, size: file.size });
      if (standing.sha256 === null && offset >= file.size && !confirmAsked) {
        // Every byte is there but the answer named no hash (the finish was interrupted): a HEAD finishes it.
        confirmAsked = true;
        offset = null;
        continue;
      }
      if (standing.sha256 !== null || offset >= file.size) {
        const sha256 = standing.sha256 ?? file.sha256;
        if (sha256.toLowerCase() !== file.sha256.toLowerCase()) throw checksumMismatch(file, null);
        await saveUploadStored(deps.knex, entry.id, { offset, sha256 });
        return uploaded(url, sha256);
      }
    } catch (error) {
      if (error instanceof Gone) {
        // Expired or removed on the server: made again once, from the first byte.
        if (recreated) throw new UploadRefused('refused', `the server lost the upload of ${file.filename} twice`, 'push again later', error.status);
        recreated = true;
        await forgetUpload(deps.knex, entry.id);
        url = null;
        offset = null;
        // The server may hold a creation under this key still: ask without a body (no byte sent twice).
        probe = true;
        continue;
      }
      if (!transient(error)) throw error;
      // A failure after bytes were acknowledged since the last one is a new run of failures.
      if ((offset ?? -1) > lastFailureAt) failures = 0;
      lastFailureAt = offset ?? lastFailureAt;
      if (++failures >= attempts) throw error instanceof Transient ? error.cause : error;
      await pause(deps, failures);
      offset = null;
    }
  }
}

/**
 * POST: creation with the first `firstBytes` (creation-with-upload). Repeated with the same
 * Idempotency-Key, the server answers the same upload and its offset without reading a body, so
 * a creation that may have reached the server already is repeated with none (`firstBytes` 0).
 */
async function create(key: string, file: StagedFileBody, deps: UploadDeps, firstBytes: number): Promise<Standing & { url: string }> {
  const first = readChunk(file, 0, Math.min(firstBytes, file.size));
  const metadata = `filename ${Buffer.from(file.filename).toString('base64')},sha256 ${Buffer.from(file.sha256).toString('base64')}`;
  const headers: Record<string, string> = { ...TUS, 'upload-length': String(file.size), 'upload-metadata': metadata, 'idempotency-key': key };
  if (first.byteLength > 0) headers['content-type'] = OCTETS;
  let response: TransportResponse;
  if (first.byteLength > 0) {
    // Sent once: the transport would repeat it (it carries an Idempotency-Key), body and all,
    // while the server answers a repeat without reading the body. After a failure the loop asks
    // again without a body instead (`probe`): no byte crosses the link twice. (A `stop` already
    // fired is how the retrying transport is told to start no retry.)
    const once = new AbortController();
    once.abort();
    response = await deps
      .transport({ method: 'POST', url: `${deps.server}${UPLOADS_PATH}`, headers, body: first, stop: deps.stop?.aborted ? deps.stop : once.signal, signal: deps.signal })
      .catch((error: unknown) => {
        // "Not retried" is the transport's word for the cut here, not an interruption of the push.
        if (error instanceof TransportError && error.code === 'ABORTED' && !deps.stop?.aborted && !deps.signal?.aborted) {
          throw new TransportError(`the creation of the upload was cut (${error.message})`, error.url, 'ECONNRESET');
        }
        throw error;
      });
  } else {
    response = await send(deps, { method: 'POST', url: `${deps.server}${UPLOADS_PATH}`, headers });
  }
  if (response.status !== 201 && response.status !== 200) {
    if (response.status === 413) throw tooLarge(file, null, response);
    throw answerFailure(response, 'POST', file);
  }
  const location = header(response, 'location');
  if (!location) throw failure('server', `the server created an upload without saying where (no Location) at ${deps.server}${UPLOADS_PATH}`, 'the server is not a fieldops server of this version');
  const url = new URL(location, `${deps.server}${UPLOADS_PATH}/`).toString();
  return { url, ...standingOf(response, file, 0) };
}

async function patch(url: string, offset: number, file: StagedFileBody, deps: UploadDeps, chunk: number): Promise<Standing> {
  const body = readChunk(file, offset, Math.min(chunk, file.size - offset));
  const response = await send(deps, { method: 'PATCH', url, headers: { ...TUS, 'upload-offset': String(offset), 'content-type': OCTETS }, body });
  if (response.status === 204 || response.status === 200) return standingOf(response, file);
  // The offset moved (bytes of a cut request arrived after all) or the server is busy: ask again.
  if (response.status === 409 || response.status === 423) throw new Transient(new TransportError(`the server answered ${response.status} to a PATCH`, url, `HTTP_${response.status}`));
  throw answerFailure(response, 'PATCH', file);
}

function standingOf(response: TransportResponse, file: StagedFileBody, fallback?: number): Standing {
  const raw = header(response, 'upload-offset');
  const offset = raw === undefined && fallback !== undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > file.size) {
    throw failure('server', `the server answered an upload with no usable Upload-Offset (${raw ?? 'none'})`, 'the server is not a tus 1.0 server of this fieldops version');
  }
  const sha = header(response, FILE_SHA256_HEADER);
  return { offset, sha256: sha && /^[0-9a-f]{64}$/i.test(sha) ? sha.toLowerCase() : null };
}

/** Classifies an unexpected answer: entry-level refusals, the upload gone, or a transient stop. */
function answerFailure(response: TransportResponse, method: string, file?: StagedFileBody): Error {
  const { status } = response;
  if (status === 404 || status === 410) return new Gone(status);
  if (status === 460 && file) return checksumMismatch(file, response);
  if (status === 401) return failure('auth', `the server refused the credentials for an upload${detail(response)}`, 'log in again with `fieldops login` (or check FIELDOPS_TOKEN)');
  // 423: another writer holds the upload (after a server crash, its lease until it runs out): later.
  if (status === 423 || status === 429 || status >= 500) return new Transient(new TransportError(`the server answered ${status} to ${method} ${UPLOADS_PATH}${detail(response)}`, UPLOADS_PATH, `HTTP_${status}`));
  return refusedBy(response, `the server refused the upload${file ? ` of ${file.filename}` : ''} (${method}, ${status})`);
}

function refusedBy(response: TransportResponse, message: string): UploadRefused {
  return new UploadRefused('refused', `${message}${detail(response)}`, response.status === 403 ? 'ask an administrator for the permission to add files' : 'check the file, or drop the entry (`fieldops outbox drop <id>`)', response.status);
}

function tooLarge(file: StagedFileBody, max: number | null, response?: TransportResponse): UploadRefused {
  const limit = max === null ? '' : ` of ${mib(max)}`;
  return new UploadRefused('too_large', `${file.filename} (${mib(file.size)}) is over the server's upload limit${limit}${response ? detail(response) : ''}`, 'attach a smaller file, or drop the entry (`fieldops outbox drop <id>`)', 413);
}

function checksumMismatch(file: StagedFileBody, response: TransportResponse | null): UploadRefused {
  return new UploadRefused('checksum_mismatch', `the server received ${file.filename} with another content hash than recorded (${file.sha256.slice(0, 12)}…)${response ? detail(response) : ''}`, 'the staged copy beside the mirror was changed; attach the file again and drop this entry', response?.status ?? null);
}

/** The upload is unknown to the server (404/410): created again once. */
class Gone extends Error {
  constructor(readonly status: number) {
    super(`upload gone (${status})`);
  }
}

/** A failure worth a HEAD and another try. */
class Transient extends Error {
  constructor(override readonly cause: TransportError) {
    super(cause.message);
  }
}

function transient(error: unknown): boolean {
  if (error instanceof Transient) return true;
  return error instanceof TransportError && !error.permanent;
}

async function send(deps: UploadDeps, request: TransportRequest): Promise<TransportResponse> {
  return deps.transport({ ...request, stop: deps.stop, signal: deps.signal });
}

async function pause(deps: UploadDeps, failures: number): Promise<void> {
  const interrupted = AbortSignal.any([deps.stop, deps.signal].filter((s): s is AbortSignal => s !== undefined));
  await sleep(Math.min(10_000, (deps.retryDelayMs ?? 250) * 2 ** (failures - 1)), interrupted).catch(() => undefined);
}

function fileOf(entry: Pick<OutboxEntry, 'id' | 'kind' | 'body'>): StagedFileBody {
  const body = entry.body as Partial<StagedFileBody>;
  if (typeof body.stored !== 'string' || typeof body.sha256 !== 'string' || !Number.isSafeInteger(body.size) || typeof body.filename !== 'string') {
    throw new UploadRefused('staged_missing', `${entry.kind} ${entry.id} was recorded without a staged copy, size and hash`, 'attach the file again with this fieldops, and drop this entry');
  }
  return body as StagedFileBody;
}

function checkStaged(file: StagedFileBody): void {
  let size: number;
  try {
    size = fs.statSync(file.stored).size;
  } catch {
    throw new UploadRefused('staged_missing', `the staged copy of ${file.filename} (${file.stored}) is gone`, 'attach the file again, and drop this entry (`fieldops outbox drop <id>`)');
  }
  if (size !== file.size) throw new UploadRefused('staged_missing', `the staged copy of ${file.filename} (${file.stored}) is ${size} bytes, not the ${file.size} recorded`, 'attach the file again, and drop this entry (`fieldops outbox drop <id>`)');
}

function readChunk(file: StagedFileBody, offset: number, length: number): Uint8Array {
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(file.stored, 'r');
  try {
    let done = 0;
    while (done < length) {
      const read = fs.readSync(fd, buffer, done, length - done, offset + done);
      if (read === 0) throw new UploadRefused('staged_missing', `the staged copy of ${file.filename} ended early`, 'attach the file again, and drop this entry');
      done += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  return buffer;
}

function uploaded(url: string, sha256: string): UploadedFile {
  return { upload: decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? ''), sha256, url };
}

const detail = (response: TransportResponse) => {
  const said = describeErrorBody(response);
  return said ? `: ${said}` : '';
};

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
