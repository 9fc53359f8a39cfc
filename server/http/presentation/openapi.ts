import type { Route } from '../routes/types.js';
import type { JSONSchema, ResponseSpec } from '../schemas/types.js';
import { earthRangerRule } from './rules.js';

const STATUS = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, detail: { type: 'string' } } };

/** Payloads of routes whose rule reshapes them (rules.ts); the others keep their own schema. */
const DATA: Record<string, JSONSchema> = {
  'eventtypes.create': { type: 'object', required: ['resource_url'], properties: { resource_url: { type: 'string' } } },
  'eventtypes.patch': { type: 'null' },
  'eventtypes.list': { type: 'array', description: 'The event types, each also with `url`, `resolve_time` (null) and `auto_resolve` (false), as the original lists them.' },
  'eventtypes.detail': { type: 'object', description: 'The event type, also with `url`, `resolve_time` (null) and `auto_resolve` (false).' },
  'eventtypes.replace': { type: 'object', description: 'The event type, also with `url`, `resolve_time` (null) and `auto_resolve` (false).' },
  'eventtypes.updates': { type: 'object', description: 'The history page; items carry `action` `added|updated|deleted` and `user` as an account.' },
  'patroltypes.updates': { type: 'object', description: 'The history page; items carry `action` `added|updated|deleted` and `user` as an account.' },
};

/**
 * The responses of a route as the `earthranger` profile shows them (CONTRACT §11): the same
 * mapping as the presentation step, at the level of the description.
 */
export function earthRangerResponses(route: Route): Record<number, ResponseSpec> {
  const rule = earthRangerRule(route.name);
  if (rule.kind === 'raw') return route.schema.responses;
  const specs = withOriginalFieldErrors(route.schema.responses);
  if (rule.kind !== 'wrap') return specs;
  const out: Record<number, ResponseSpec> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const status = Number(key);
    if (status === 204) {
      out[200] = { description: `${spec.description} (earthranger: 200 with \`data: null\`)`, json: envelope(DATA[route.name] ?? { type: 'null' }) };
    } else if (status < 300 && spec.json) {
      out[status] = { ...spec, json: envelope(DATA[route.name] ?? spec.json) };
    } else {
      out[status] = spec;
    }
  }
  return out;
}

function envelope(data: JSONSchema): JSONSchema {
  return { type: 'object', required: ['data', 'status'], properties: { data, status: STATUS } };
}

/** A 400 as the original answers it (presentation/error-shapes.ts): messages per field. */
const ORIGINAL_ERROR: JSONSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { ...STATUS, properties: { ...STATUS.properties, detail: { type: 'string', description: 'With field errors: the field messages as a JSON object text (the web app parses it).' } } } },
  additionalProperties: { type: 'array', items: { type: 'string' } },
  description: 'Field errors as lists of messages (`{"field": ["message"]}`), as the original (Django REST framework) answers.',
};

function withOriginalFieldErrors(specs: Record<number, ResponseSpec>): Record<number, ResponseSpec> {
  const bad = specs[400];
  if (!bad?.json) return specs;
  // A 400 with its own members (the migration's results) keeps them beside the field messages.
  const own = (bad.json.properties ?? {}) as Record<string, JSONSchema>;
  return { ...specs, 400: { ...bad, json: { ...ORIGINAL_ERROR, properties: { ...own, ...(ORIGINAL_ERROR.properties as object) } } } };
}
