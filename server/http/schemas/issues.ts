import type { ErrorObject } from 'ajv';
import type { FieldErrors, FieldIssue } from '../../domain/errors.js';
import type { JSONSchema } from './types.js';
import { nameTable } from '../../domain/name-table.js';

/**
 * Turns Ajv errors into the contract's field errors, keyed and coded the way the domain
 * readers key and code them: a body field by its name (`patrol_segments[0].leader` when
 * nested), a query parameter by its name; codes by keyword (`required`, `invalid_type`,
 * `unknown_field`, `invalid_choice`, `max_length`, ...) unless the schema says otherwise with
 * `x-error-code` / `x-error-codes` (see types.ts). Every issue carries its JSON Pointer.
 */
export interface MappedIssues {
  fields: FieldErrors;
  detail: string;
}

const CONSUMES_NAME = new Set(['properties', 'patternProperties', 'prefixItems']);
const NAMED_NO_CONSUME = new Set(['$defs', 'dependentSchemas', 'allOf', 'anyOf', 'oneOf']);
const CONSUMES = new Set(['items', 'additionalProperties', 'contains', 'unevaluatedProperties', 'unevaluatedItems']);

interface Step {
  schema: JSONSchema;
  /** How many instance segments lead to this subschema. */
  depth: number;
}

/** The chain of subschemas from the root to the one owning the failed keyword. */
function chainOf(root: JSONSchema, schemaPath: string): { chain: Step[]; keyword: string } {
  const segments = schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const chain: Step[] = [{ schema: root, depth: 0 }];
  let node: unknown = root;
  let depth = 0;
  let i = 0;
  while (i < segments.length - 1 && node && typeof node === 'object') {
    const keyword = segments[i]!;
    const record = node as Record<string, unknown>;
    if (CONSUMES_NAME.has(keyword) || NAMED_NO_CONSUME.has(keyword)) {
      node = (record[keyword] as Record<string, unknown> | undefined)?.[segments[i + 1]!];
      if (CONSUMES_NAME.has(keyword)) depth++;
      i += 2;
    } else {
      node = record[keyword];
      if (CONSUMES.has(keyword)) depth++;
      i += 1;
    }
    if (node && typeof node === 'object') chain.push({ schema: node as JSONSchema, depth });
  }
  return { chain, keyword: segments[segments.length - 1] ?? '' };
}

function defaultCode(error: ErrorObject): string {
  switch (error.keyword) {
    case 'type': return 'invalid_type';
    case 'required': return 'required';
    case 'additionalProperties': return 'unknown_field';
    case 'enum': case 'const': return 'invalid_choice';
    case 'maxLength': return 'max_length';
    case 'minLength': return (error.params as { limit?: number }).limit === 1 ? 'blank' : 'min_length';
    case 'format': return (error.params as { format?: string }).format === 'date-time' ? 'invalid_datetime' : 'invalid';
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum': return 'out_of_range';
    case 'maxItems': return 'too_many';
    case 'minItems': return 'too_few';
    case 'not': return 'not_allowed';
    default: return 'invalid';
  }
}

const MESSAGES: Record<string, (error: ErrorObject, value: unknown) => [string, string[]]> = {
  required: () => ['This field is required.', ['Provide it.']],
  unknown_field: (e) => [`Unknown field "${(e.params as { additionalProperty: string }).additionalProperty}".`, ['See /api/docs for the fields of this request.']],
  invalid_type: (e) => [`Expected ${[(e.params as { type: string | string[] }).type].flat().join(' or ')}.`, ['See /api/docs for the type of each field.']],
  invalid_choice: (e, v) => [`"${String(v).slice(0, 60)}" is not a valid choice.`, [e.keyword === 'enum' ? `Use one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String).join(', ')}.` : 'See /api/docs.']],
  max_length: (e) => [`Ensure this field has no more than ${(e.params as { limit: number }).limit} characters.`, ['Shorten it.']],
  blank: () => ['This field may not be blank.', ['Provide a value.']],
  invalid_datetime: (_e, v) => [`"${String(v).slice(0, 60)}" is not an ISO 8601 date-time with an offset.`, ['Use a form like 2026-11-20T10:00:00.000+00:00 (the offset is required).']],
};

function describe(code: string, error: ErrorObject, value: unknown): [string, string[]] {
  const known = MESSAGES[code];
  if (known && (code !== 'invalid_choice' || error.keyword === 'enum' || error.keyword === 'const')) return known(error, value);
  if (code === 'required' || code === 'unknown_field') return MESSAGES[code]!(error, value);
  return [`Invalid value: ${error.message ?? 'see the API documentation'}.`, ['See /api/docs for what this field accepts.']];
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const decode = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

function valueAt(data: unknown, segments: string[]): unknown {
  let node = data;
  for (const segment of segments) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
  return node;
}

/** `['patrol_segments', '0', 'leader']` → `patrol_segments[0].leader`. */
function readerKey(segments: string[]): string {
  return segments.reduce((key, segment, i) => (i === 0 ? segment : /^\d+$/.test(segment) ? `${key}[${segment}]` : `${key}.${segment}`), '');
}

/**
 * `rootKey` names a failure of the whole value (`body`); `x-batch-key` on the root schema
 * gathers every issue under that key with the item index, as the sensor intake reports.
 */
export function mapIssues(errors: readonly ErrorObject[], root: JSONSchema, data: unknown, rootKey: string, detail: string): MappedIssues {
  const batchKey = typeof root['x-batch-key'] === 'string' ? (root['x-batch-key'] as string) : null;
  // Keys are property names the client sent (`constructor`, `__proto__` among them).
  const fields: FieldErrors = nameTable();
  const seen = new Set<string>();
  const items = new Set<number>();
  for (const error of errors) {
    // Umbrella errors of conditionals; their branches report the real problem.
    if (error.keyword === 'if') continue;
    const { chain, keyword } = chainOf(root, error.schemaPath);
    let segments = error.instancePath.split('/').slice(1).map(decode);
    const collapsed = [...chain].reverse().find((step) => typeof step.schema['x-error-code'] === 'string');
    let code: string;
    if (collapsed) {
      code = collapsed.schema['x-error-code'] as string;
      segments = segments.slice(0, collapsed.depth);
    } else {
      const owner = chain[chain.length - 1]!.schema;
      code = (owner['x-error-codes'] as Record<string, string> | undefined)?.[keyword] ?? defaultCode(error);
      const params = error.params as { missingProperty?: string; additionalProperty?: string };
      if (error.keyword === 'required' && params.missingProperty) segments = [...segments, params.missingProperty];
      if (error.keyword === 'additionalProperties' && params.additionalProperty) segments = [...segments, params.additionalProperty];
    }
    const pointer = segments.length ? '/' + segments.map(escape).join('/') : '';
    const key = batchKey ?? (segments.length ? readerKey(segments) : rootKey);
    if (seen.has(`${key}\u0000${code}\u0000${pointer}`)) continue;
    seen.add(`${key}\u0000${code}\u0000${pointer}`);
    const [message, hints] = describe(code, error, valueAt(data, error.instancePath.split('/').slice(1).map(decode)));
    const issue: FieldIssue & { index?: number } = { code, message, hints, pointer };
    if (batchKey) {
      const index = Array.isArray(data) ? Number(segments[0] ?? NaN) : 0;
      if (Number.isInteger(index) && (segments.length > 0 || !Array.isArray(data))) {
        issue.index = index;
        issue.message = `Item ${index}: ${message}`;
        items.add(index);
      }
    }
    (fields[key] ??= []).push(issue);
  }
  if (batchKey && items.size > 0) {
    fields[batchKey]!.sort((a, b) => ((a as { index?: number }).index ?? -1) - ((b as { index?: number }).index ?? -1));
    detail = `${items.size} of ${Array.isArray(data) ? data.length : 1} item(s) are invalid; nothing was stored.`;
  }
  return { fields, detail };
}
