/**
 * The shape of a route's description. JSON Schemas are plain 2020-12 objects; a few `x-`
 * keywords (ignored by validators and OpenAPI tools) say how a validation failure is reported
 * in the contract's error body, so that it matches what the domain readers report:
 *
 * - `x-error-code`: any failure at or below this subschema is one issue, at this location,
 *   with this code (e.g. a whole `leader` object is `invalid_leader`).
 * - `x-error-codes`: `{keyword: code}` for failures of this subschema's own keywords
 *   (e.g. `{maximum: 'out_of_range'}`), other keywords keep their usual code.
 * - `x-batch-key` (body root only): the body is one item or an array of items; issues are
 *   listed under this key with the item's `index`, as the sensor intake reports them.
 */
export type JSONSchema = Record<string, unknown>;

/** The name a shared schema has under `components/schemas` in the OpenAPI document. */
export const COMPONENT_NAME = Symbol('component name');

/**
 * Names a shared schema: the document refers to it (`$ref`) instead of repeating it. The mark
 * is invisible to validators and is not copied by spreading, so a changed copy is inlined.
 */
export function named<T extends JSONSchema>(name: string, schema: T): T {
  Object.defineProperty(schema, COMPONENT_NAME, { value: name, enumerable: false });
  return schema;
}

export interface ResponseSpec {
  description: string;
  /** The JSON body; responses seen in tests are checked against it. */
  json?: JSONSchema;
  /** A non-JSON body (HTML, bytes, Prometheus text): its media type; not checked. */
  mediaType?: string;
  headers?: Record<string, string>;
}

export interface ParamSpec {
  description: string;
  schema?: JSONSchema;
}

export type BodySpec =
  /** Validated before the handler when the route parses JSON (`Route.body`). */
  | { kind: 'json'; schema: JSONSchema; description?: string }
  /** Form fields (OAuth): described, read by the endpoint itself. */
  | { kind: 'form'; schema: JSONSchema; description?: string }
  /** multipart/form-data with a file: described, read by the endpoint itself. */
  | { kind: 'multipart'; schema: JSONSchema; description?: string };

export interface RouteSchema {
  summary: string;
  description?: string;
  tags: string[];
  /** Path parameters (not validated: a malformed id is simply not found, 404). */
  params?: Record<string, ParamSpec>;
  /**
   * An object schema whose properties are the query parameters, over their raw text values.
   * An array-typed property repeats; any other takes the last value when repeated. An empty
   * value counts as absent. Unknown parameters are allowed (and ignored).
   */
  query?: JSONSchema;
  body?: BodySpec;
  responses: Record<number, ResponseSpec>;
  /** Who may call: by default `credentials` when the route authenticates, else `public`. */
  security?: 'public' | 'credentials' | 'metrics';
}
