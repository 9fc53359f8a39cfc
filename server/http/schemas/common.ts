import { type JSONSchema, type ResponseSpec, named } from './types.js';

/**
 * Building blocks shared by every area's schemas. Formats: `date-time` is ISO 8601 with an
 * offset (seconds optional, CONTRACT §1), `uuid` is the 8-4-4-4-12 hex form; the validator
 * checks both with the same functions the domain readers use.
 */
export const uuid: JSONSchema = { type: 'string', format: 'uuid' };
export const dateTime: JSONSchema = { type: 'string', format: 'date-time' };
export const latLon: JSONSchema = named('LatLon', {
  type: 'object',
  properties: { latitude: { type: 'number', minimum: -90, maximum: 90 }, longitude: { type: 'number', minimum: -180, maximum: 180 } },
  required: ['latitude', 'longitude'],
  additionalProperties: false,
});
export const nullableDateTime: JSONSchema = { type: ['string', 'null'], format: 'date-time' };
export const anyObject: JSONSchema = { type: 'object' };
export const priority: JSONSchema = { enum: [0, 100, 200, 300], description: 'Priority: 0, 100, 200 or 300.' };
export const slug = (maxLength: number): JSONSchema => ({ type: 'string', maxLength, pattern: '^[A-Za-z0-9_-]+$' });

export const str = (maxLength?: number, extra: JSONSchema = {}): JSONSchema => ({ type: 'string', ...(maxLength ? { maxLength } : {}), ...extra });
export const nullable = (schema: JSONSchema): JSONSchema => {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  if (Array.isArray(type)) return { ...schema, type: [...type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
};
export const array = (items: JSONSchema, extra: JSONSchema = {}): JSONSchema => ({ type: 'array', items, ...extra });

/** A closed object: every property listed; `required` as given. */
export function object(properties: Record<string, JSONSchema>, required: string[] = Object.keys(properties), extra: JSONSchema = {}): JSONSchema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}
/** An open object: the listed properties are checked, others allowed. */
export function openObject(properties: Record<string, JSONSchema>, required: string[] = [], extra: JSONSchema = {}): JSONSchema {
  return { type: 'object', properties, required, ...extra };
}
/** Accepted in a write body and ignored (clients send back what they read). */
export const readOnly = (description = 'Read-only: accepted and ignored on writes.'): JSONSchema => ({ readOnly: true, description });

// ---- query parameters (raw text values) ----

/** CONTRACT §1: case-insensitive `true|1|yes|on` and `false|0|no|off|''`; anything else is 400. */
export const queryBoolean = (description: string): JSONSchema => ({
  type: 'string',
  pattern: '^(?:[Tt][Rr][Uu][Ee]|1|[Yy][Ee][Ss]|[Oo][Nn]|[Ff][Aa][Ll][Ss][Ee]|0|[Nn][Oo]|[Oo][Ff][Ff]|)$',
  description: `${description} A boolean: true, 1, yes, on / false, 0, no, off or empty (case-insensitive); default false.`,
  examples: ['true'],
  'x-error-code': 'invalid_boolean',
});
export const queryInteger = (description: string): JSONSchema => ({ type: 'string', pattern: '^[0-9]+$', description, 'x-error-code': 'invalid' });
export const queryDateTime = (description: string): JSONSchema => ({ type: 'string', format: 'date-time', description: `${description} ISO 8601 with an offset, e.g. 2026-11-20T10:00:00+00:00.` });
export const queryParams = (properties: Record<string, JSONSchema>, required: string[] = []): JSONSchema => ({ type: 'object', properties, required });
export const pageParams = {
  page: queryInteger('1-based page number (default 1); a page past the end is 404.'),
  page_size: queryInteger('Results per page (default 25, at most 4000).'),
};

// ---- bodies of responses ----

export const fieldIssue: JSONSchema = named('FieldIssue', {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'Stable machine-readable code.' },
    message: { type: 'string' },
    hints: array({ type: 'string' }),
    pointer: { type: 'string', description: 'JSON Pointer of the offending value, when known.' },
    category: { enum: ['validation', 'reference', 'rendering', 'ui'], description: 'Schema issues only (CONTRACT §4).' },
    index: { type: 'integer', description: 'Batch issues only: the item.' },
  },
  required: ['code', 'message', 'hints'],
});

const statusObject: JSONSchema = object({ code: { type: 'integer' }, message: { type: 'string', description: 'Reason phrase.' }, detail: { type: 'string' } });

/** CONTRACT §1: `{"status": {code, message, detail}, <field>: [issues]...}`. */
export const errorBody: JSONSchema = named('ErrorBody', {
  type: 'object',
  properties: { status: statusObject },
  required: ['status'],
  additionalProperties: array(fieldIssue),
  description: 'The error body: the status, and per-field issues under the field name.',
});

/** RFC 6749 §5.2. */
export const oauthErrorBody: JSONSchema = named('OAuthError', object({ error: { type: 'string' }, error_description: { type: 'string' } }));

/** `{count, next, previous, results}` with absolute links (CONTRACT §1). */
export const page = (item: JSONSchema): JSONSchema =>
  object({ count: { type: 'integer', minimum: 0 }, next: nullable({ type: 'string', format: 'uri' }), previous: nullable({ type: 'string', format: 'uri' }), results: array(item) });

/** The users and sensors envelope: `{status: {code, message}, data}`. */
export const envelope = (data: JSONSchema): JSONSchema => object({ status: object({ code: { type: 'integer' }, message: { type: 'string' } }), data });

// ---- responses ----

export const ok = (json: JSONSchema, description = 'OK'): ResponseSpec => ({ description, json });
export const created = (json: JSONSchema, description = 'Created'): ResponseSpec => ({ description, json });
export const noContent: ResponseSpec = { description: 'Done; no body.' };
export const notModified: ResponseSpec = { description: 'Not modified: the validator sent still matches (no body).' };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: the error body lists every problem by field.',
  401: 'No or invalid credentials (`WWW-Authenticate: Bearer`).',
  403: 'Authenticated, without the permission.',
  404: 'Not found (another tenant\'s objects and malformed ids included).',
  409: 'Conflict.',
  412: 'Precondition failed.',
  413: 'The body is too large.',
  415: 'Unsupported media type.',
  422: 'The stored document cannot be served.',
  429: 'Too many requests: failed credential attempts, or uploads in flight (`Retry-After`).',
  503: 'The database is unavailable, or the server is saturated with credential checks; retry later (`Retry-After` when known).',
};

/** Contract error responses for the given statuses. */
export function errors(...statuses: number[]): Record<number, ResponseSpec> {
  return Object.fromEntries(statuses.map((status) => [status, { description: ERROR_DESCRIPTIONS[status] ?? 'Error.', json: errorBody }]));
}

/** What any authenticated endpoint may answer besides its own statuses. */
export const AUTH_ERRORS = [401, 403, 429, 503] as const;
/** A read of one object by id or key. */
export const readErrors = () => errors(400, ...AUTH_ERRORS, 404);
/** A JSON write. */
export const writeErrors = () => errors(400, ...AUTH_ERRORS, 404, 413, 415);
