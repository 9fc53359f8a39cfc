/**
 * The resumable uploads endpoint (tus 1.0, a fieldops extension; docs/design/offline-writes-plan.md
 * §6). Bodies are bytes (`application/offset+octet-stream`); answers carry headers only, errors
 * the contract's error body (tus clients read statuses and headers).
 */
import { AUTH_ERRORS, errorBody, errors, noContent } from './common.js';
import type { ResponseSpec, RouteSchema } from './types.js';

const tags = ['sync'];
const id = { upload: { description: 'The upload: the last segment of the Location its creation answered.' } };
const tusError = (status: number, description: string): Record<number, ResponseSpec> => ({ [status]: { description, json: errorBody } });

const STATE_HEADERS = {
  'Tus-Resumable': '1.0.0.',
  'Upload-Offset': 'Bytes received so far: resume from here.',
  'Upload-Expires': 'While unfinished: when the upload expires and is removed (RFC 7231 date).',
  'Fieldops-File-Sha256': 'Once every byte arrived and matched the claimed sha256: the stored file\'s sha256 (the client may drop its copy once attached).',
};
const common = { ...errors(...AUTH_ERRORS, 400), ...tusError(412, 'Tus-Resumable missing or not 1.0.0 (`Tus-Version` lists the versions).'), ...tusError(423, 'Another request is writing this upload; retry shortly.') };

export const uploadSchemas = {
  options: {
    summary: 'What the upload server supports (tus discovery)',
    tags,
    security: 'public',
    responses: {
      204: {
        description: 'No body.',
        headers: { 'Tus-Version': '1.0.0.', 'Tus-Extension': 'creation,creation-with-upload,termination,expiration.', 'Tus-Max-Size': 'The largest file accepted, in bytes.' },
      },
    },
  },
  create: {
    summary: 'Start a resumable upload (tus creation, creation-with-upload)',
    description:
      'Needs add_event, change_event, add_patrol or change_patrol. Headers: `Tus-Resumable: 1.0.0`, `Upload-Length` (at most Tus-Max-Size, else 413 before any byte is stored), ' +
      '`Upload-Metadata` with `filename` and `sha256` (64 hex digits), optionally `Idempotency-Key` (the same creation repeated answers the same Location and the current offset) ' +
      'and `Fieldops-Client-Id`. A body (`Content-Type: application/offset+octet-stream`) is the first bytes. The finished upload is attached with an `event.file` or `patrol.file` push entry.',
    tags,
    responses: {
      201: { description: 'Created; `Location` is the upload.', headers: { Location: 'The upload\'s URL (relative).', ...STATE_HEADERS } },
      ...common,
      ...errors(409, 413, 422),
      ...tusError(460, 'Checksum Mismatch: every byte arrived but they do not hash to the sha256 given; the upload is removed.'),
    },
  },
  head: {
    summary: 'How far an upload got (tus HEAD; a GET is answered the same, headers only)',
    tags,
    params: id,
    responses: {
      200: { description: 'No body.', headers: { ...STATE_HEADERS, 'Upload-Length': 'The declared length.' } },
      ...common,
      ...errors(404),
      ...tusError(410, 'The upload failed its checksum, or expired, and was removed.'),
      ...tusError(460, 'Checksum Mismatch (a finish this HEAD completed).'),
    },
  },
  patch: {
    summary: 'Send bytes of an upload from `Upload-Offset` (tus PATCH)',
    tags,
    params: id,
    responses: {
      204: { description: 'Received; no body.', headers: STATE_HEADERS },
      ...common,
      ...errors(404, 409, 413, 415),
      ...tusError(410, 'The upload failed its checksum, or expired, and was removed.'),
      ...tusError(460, 'Checksum Mismatch: the bytes do not hash to the sha256 given; the upload is removed.'),
    },
  },
  remove: {
    summary: 'Abandon an upload (tus termination)',
    tags,
    params: id,
    responses: { 204: noContent, ...common, ...errors(404) },
  },
} satisfies Record<string, RouteSchema>;
