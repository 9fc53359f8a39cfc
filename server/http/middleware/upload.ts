import { PassThrough } from 'node:stream';
import busboy from 'busboy';
import { AuthenticationError, InputError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../domain/errors.js';
import type { FileStore, StagedFile } from '../../storage/file-store.js';
import { TooManyUploadsError, type UploadSlots } from '../upload-slots.js';
import type { AppContext } from '../state.js';
import type { FormFields } from './body.js';
import { nameTable } from '../../domain/name-table.js';
import { beginIdempotent } from './idempotency.js';

export interface UploadOptions {
  /** The multipart field that carries the file (e.g. `filecontent.file`). */
  fileField: string;
  maxFileBytes: number;
  maxFieldBytes: number;
  /**
   * Decides whether the caller may upload here at all (authentication, permission, the target
   * existing in the caller's tenant): throws to refuse. Runs before a byte of the body is read.
   */
  authorize: () => Promise<void> | void;
  /** Concurrent uploads per principal and in total. */
  slots: UploadSlots;
}

export interface UploadedFile {
  staged: StagedFile;
  /** As the client named it: for display only, never for the content type. */
  filename: string;
}

export interface Upload {
  fields: FormFields;
  file: UploadedFile | null;
}

type Staging = { ok: true; staged: StagedFile } | { ok: false; error: unknown };

/**
 * Admits the upload (authorised, and a slot free), then reads a multipart/form-data request
 * with at most one file, streamed into the file store's staging area (never held in memory),
 * and runs `work` with it. Whatever `work` did not commit is discarded afterwards; an
 * interrupted or failed upload leaves no file behind.
 */
export async function withUpload<T>(ctx: AppContext, store: FileStore, options: UploadOptions, work: (upload: Upload) => Promise<T>): Promise<T> {
  const release = await admit(ctx, options);
  try {
    const upload = await readUpload(ctx, store, options);
    try {
      // A keyed upload is hashed by its fields and its file's digest (not the multipart framing).
      const file = upload.file ? { sha256: upload.file.staged.sha256, size: upload.file.staged.size, filename: upload.file.filename } : null;
      await beginIdempotent(ctx, { fields: upload.fields, file });
      return await work(upload);
    } finally {
      await upload.file?.staged.discard();
    }
  } finally {
    release();
  }
}

/**
 * Refusals happen before the body is read. The answer then closes the connection, so the server
 * neither stages nor drains what the client is still sending.
 */
async function admit(ctx: AppContext, options: UploadOptions): Promise<() => void> {
  try {
    await options.authorize();
    if (!ctx.state.principal) throw new AuthenticationError();
    return options.slots.acquire(ctx.state.principal);
  } catch (error) {
    ctx.set('Connection', 'close');
    if (error instanceof TooManyUploadsError) ctx.set('Retry-After', '1');
    throw error;
  }
}

function readUpload(ctx: AppContext, store: FileStore, options: Pick<UploadOptions, 'fileField' | 'maxFileBytes' | 'maxFieldBytes'>): Promise<Upload> {
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    return Promise.reject(new UnsupportedMediaTypeError(`Unsupported media type "${type || 'none'}"; send multipart/form-data.`));
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        // File names arrive as UTF-8 from browsers and fetch; busboy's default is latin1.
        defParamCharset: 'utf8',
        // One byte over the limit is enough for the store to refuse the file; busboy skips the rest.
        limits: { fieldSize: options.maxFieldBytes, fields: 50, files: 1, parts: 60, fileSize: options.maxFileBytes + 1 },
      });
    } catch {
      reject(malformed());
      return;
    }
    const fields: FormFields = nameTable();
    let filename = '';
    let staging: Promise<Staging> | null = null;
    let receiving: PassThrough | null = null;
    let failure: unknown = null;
    let finished = false;

    const finish = async () => {
      if (finished) return;
      finished = true;
      ctx.req.off('close', onClose);
      const outcome = staging ? await staging : null;
      if (outcome && !outcome.ok) failure ??= outcome.error;
      if (failure) {
        if (outcome?.ok) await outcome.staged.discard();
        reject(failure);
      } else {
        resolve({ fields, file: outcome?.ok ? { staged: outcome.staged, filename } : null });
      }
    };
    // The client went away mid-body: stop receiving (the store removes its temporary file).
    const onClose = () => {
      if (ctx.req.complete) return;
      failure ??= InputError.field('body', 'body_unreadable', 'The upload was interrupted.', ['Send the request again.']);
      receiving?.destroy(new Error('upload interrupted'));
      void finish();
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) failure ??= new PayloadTooLargeError(`A form field is larger than ${options.maxFieldBytes} bytes.`);
      (fields[name] ??= []).push(value);
    });
    parser.on('file', (name, stream, info) => {
      if (name !== options.fileField || staging) {
        failure ??= InputError.field(name, 'unexpected_file', `Unexpected file in field "${name}".`, [`Send one file, in "${options.fileField}".`]);
        stream.resume();
        return;
      }
      filename = info.filename ?? '';
      const pass = new PassThrough();
      receiving = pass;
      stream.pipe(pass);
      staging = store.stage(pass, { maxBytes: options.maxFileBytes }).then(
        (staged): Staging => ({ ok: true, staged }),
        (error): Staging => {
          // Keep draining the part so the rest of the form (and the response) still flow.
          stream.unpipe(pass);
          stream.resume();
          return { ok: false, error };
        },
      );
    });
    const tooMany = () => (failure ??= new PayloadTooLargeError('Too many form parts.'));
    parser.on('partsLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('filesLimit', () => (failure ??= InputError.field(options.fileField, 'unexpected_file', 'Send exactly one file.')));
    parser.on('error', () => {
      failure ??= malformed();
      receiving?.destroy(new Error('malformed multipart body'));
      void finish();
    });
    parser.on('close', () => void finish());
    ctx.req.on('close', onClose);
    ctx.req.pipe(parser);
  });
}

function malformed(): InputError {
  return InputError.field('body', 'parse_error', 'Malformed multipart body.', ['Send a well-formed multipart/form-data body with a boundary.']);
}
