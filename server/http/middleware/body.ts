import busboy from 'busboy';
import getRawBody from 'raw-body';
import { InputError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../domain/errors.js';
import type { AppContext, Middleware } from '../state.js';
import { nameTable } from '../../domain/name-table.js';

export type FormFields = Record<string, string[]>;
export type BodyKind = 'json' | 'form';

export interface BodyLimits {
  jsonBytes: number;
  formBytes: number;
}

/**
 * Reads and parses the request body into `ctx.state.body`, with a size limit for each kind.
 * `json` accepts application/json (and +json); `form` accepts url-encoded and multipart form
 * fields (files are not accepted here) and yields every value of every field, in order.
 */
export function parseBody(kinds: readonly BodyKind[], limits: BodyLimits): Middleware {
  return async (ctx, next) => {
    ctx.state.body = await readBody(ctx, kinds, limits);
    await next();
  };
}

export async function readBody(ctx: AppContext, kinds: readonly BodyKind[], limits: BodyLimits): Promise<unknown> {
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  const hasBody = ctx.request.length > 0 || ctx.get('Transfer-Encoding') !== '';
  if (kinds.includes('json') && (type === 'application/json' || type.endsWith('+json') || (!type && !hasBody))) {
    if (!hasBody) return undefined;
    const text = await raw(ctx, limits.jsonBytes);
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw InputError.field('body', 'parse_error', `Malformed JSON: ${(error as Error).message}`, ['Send a valid JSON document.']);
    }
  }
  if (kinds.includes('form') && type === 'application/x-www-form-urlencoded') {
    return urlEncodedFields(await raw(ctx, limits.formBytes));
  }
  if (kinds.includes('form') && type === 'multipart/form-data') {
    return multipartFields(ctx, limits.formBytes);
  }
  if (!hasBody && kinds.includes('form')) return {};
  const accepted = kinds.map((kind) => (kind === 'json' ? 'application/json' : 'application/x-www-form-urlencoded or multipart/form-data')).join(' or ');
  throw new UnsupportedMediaTypeError(`Unsupported media type "${type || 'none'}"; send ${accepted}.`);
}

async function raw(ctx: AppContext, limit: number): Promise<string> {
  try {
    return await getRawBody(ctx.req, { length: ctx.request.length, limit, encoding: 'utf8' });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw new PayloadTooLargeError(`The request body is larger than ${limit} bytes.`);
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') throw new UnsupportedMediaTypeError('Unsupported body encoding.');
    throw InputError.field('body', 'body_unreadable', 'The request body could not be read completely.', ['Send the body again.']);
  }
}

function urlEncodedFields(text: string): FormFields {
  const fields: FormFields = nameTable();
  for (const [key, value] of new URLSearchParams(text)) (fields[key] ??= []).push(value);
  return fields;
}

function multipartFields(ctx: AppContext, limit: number): Promise<FormFields> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fieldSize: limit, fields: 50, files: 0, parts: 50 } });
    } catch {
      reject(InputError.field('body', 'parse_error', 'Malformed multipart body.', ['Send multipart/form-data with a boundary.']));
      return;
    }
    const fields: FormFields = nameTable();
    let failure: Error | null = null;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) failure ??= new PayloadTooLargeError(`A form field is larger than ${limit} bytes.`);
      (fields[name] ??= []).push(value);
    });
    parser.on('file', (_name, stream) => {
      failure ??= new UnsupportedMediaTypeError('Files are not accepted here.');
      stream.resume();
    });
    const limitHit = () => (failure ??= new PayloadTooLargeError('Too many form parts.'));
    parser.on('partsLimit', limitHit);
    parser.on('fieldsLimit', limitHit);
    parser.on('filesLimit', () => (failure ??= new UnsupportedMediaTypeError('Files are not accepted here.')));
    parser.on('error', () => reject(InputError.field('body', 'parse_error', 'Malformed multipart body.', ['Send a well-formed multipart/form-data body.'])));
    parser.on('close', () => (failure ? reject(failure) : resolve(fields)));
    ctx.req.pipe(parser);
  });
}
