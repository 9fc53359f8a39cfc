import type { ValidateFunction } from 'ajv';
import type { Ajv } from '../../../schema/ajv-factory.js';
import { type FieldErrors, InputError } from '../../domain/errors.js';
import { mapIssues } from '../schemas/issues.js';
import type { JSONSchema } from '../schemas/types.js';
import type { Route } from '../routes/types.js';
import type { AppContext, Middleware } from '../state.js';
import { callerProfile } from '../presentation/caller-profile.js';

/**
 * Checks a request's query and JSON body against its route's schemas before the handler
 * (server/http/schemas/), mapping failures to the contract's 400 error body, every problem
 * listed. The domain readers still run after it: the schemas say what the structure is, the
 * readers enforce what it means (uniqueness, references, cross-field rules).
 *
 * Query failures are answered at once, as the handlers did when they read the query first.
 * A body failure is answered when the body is first read: the body is handed on as a
 * tripwire (a proxy that throws the 400 on any read), so that whatever the endpoint decides
 * before reading its body (401, 403, 404, 412) still comes first, exactly as before. A body
 * that is not an object or array is handed on as it is; its reader reports it.
 *
 * Not checked here: path parameters (a malformed id is a 404), form and multipart bodies
 * (read by their endpoints), and an absent body (its endpoint says what it needs).
 * Validators are compiled on a route's first request.
 */
export interface ValidateOptions {
  /** A batch body (`x-batch-key`) was refused: how many items it held. */
  onBatchRejected?: (items: number) => void;
  /** What the caller's profile refuses beyond the schema (presentation/request-rules.ts), reported with the schema's issues. */
  requestRule?: (ctx: AppContext, body: object) => FieldErrors | null;
}

export function validateRequest(route: Route, ajv: Ajv, options: ValidateOptions = {}): Middleware | null {
  const { query, body } = route.schema;
  const checksBody = body?.kind === 'json' && (route.body ?? []).includes('json');
  if (!query && !checksBody) return null;
  let queryValidator: ValidateFunction | null = null;
  let bodyValidator: ValidateFunction | null = null;
  return async (ctx, next) => {
    if (query) {
      queryValidator ??= ajv.compile(query);
      const values = queryValues(ctx, query);
      if (callerProfile(ctx) === 'earthranger') dropUnknownBooleans(values, query);
      if (!queryValidator(values)) {
        const { fields, detail } = mapIssues(queryValidator.errors ?? [], query, values, 'query', 'Invalid query parameters.');
        throw new InputError(detail, fields);
      }
    }
    const sent = ctx.state.body as unknown;
    if (checksBody && body && sent !== null && typeof sent === 'object') {
      bodyValidator ??= ajv.compile(body.schema);
      const valid = bodyValidator(sent);
      const refused = options.requestRule?.(ctx, sent) ?? null;
      if (!valid || refused) {
        const mapped = valid ? { fields: {}, detail: 'The request body is not valid.' } : mapIssues(bodyValidator.errors ?? [], body.schema, sent, 'body', 'The request body is not valid.');
        const fields = { ...mapped.fields, ...refused };
        const batch = Boolean(body.schema['x-batch-key']);
        ctx.state.body = tripwire(sent, () => {
          if (batch) options.onBatchRejected?.(Array.isArray(sent) ? (sent as unknown[]).length : 1);
          return new InputError(mapped.detail, fields);
        });
      }
    }
    await next();
  };
}

/** The body, as seen through a proxy that throws the validation error on the first look inside. */
function tripwire(body: object, failure: () => InputError): object {
  let error: InputError | null = null;
  const trip = (): never => {
    throw (error ??= failure());
  };
  return new Proxy(body, { get: trip, has: trip, ownKeys: trip, getOwnPropertyDescriptor: trip, getPrototypeOf: trip });
}

/**
 * The declared parameters as the endpoints read them: a repeated single-valued parameter
 * counts with its last value, an array-typed one with all of them, and an empty value as
 * absent. Undeclared parameters are left out (and ignored).
 */
export function queryValues(ctx: AppContext, query: JSONSchema): Record<string, string | string[]> {
  const properties = (query.properties ?? {}) as Record<string, JSONSchema>;
  const values: Record<string, string | string[]> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const raw = ctx.query[name];
    if (raw === undefined) continue;
    const all = (Array.isArray(raw) ? raw : [raw]).filter((value) => value !== '');
    if (all.length === 0) continue;
    values[name] = schema.type === 'array' ? all : (Array.isArray(raw) ? raw[raw.length - 1]! : raw);
    if (values[name] === '') delete values[name];
  }
  return values;
}

const BOOLEAN_TEXT = /^(?:true|1|yes|on|false|0|no|off|)$/i;

/**
 * The earthranger profile reads an unrecognised query boolean as false, as the original does
 * (query.ts's queryBoolean); the fieldops profile keeps CONTRACT §1's 400. Such a value is
 * therefore not checked here.
 */
function dropUnknownBooleans(values: Record<string, string | string[]>, query: JSONSchema): void {
  const properties = (query.properties ?? {}) as Record<string, JSONSchema>;
  for (const [name, value] of Object.entries(values)) {
    if (properties[name]?.['x-error-code'] === 'invalid_boolean' && typeof value === 'string' && !BOOLEAN_TEXT.test(value)) delete values[name];
  }
}
