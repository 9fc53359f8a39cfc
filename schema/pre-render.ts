/**
 * `preRender`: a stored document as served with `pre_render=true`. Each choice reference is
 * expanded into its list, in the shape asked for (CONTRACT §4 `s_format`):
 * - `anyOf` (default): `anyOf: [{const: value, title: display}, ...]`
 * - `oneOf`: `oneOf: [{const, title}, ...]`
 * - `enum`: `enum: [values]` plus `x-enumExtra: {<value>: {display}}`
 * and the root `unevaluatedProperties: false` is dropped (unless `keepRootClosure`). The input
 * is normalised first.
 *
 * A reference that cannot be resolved (the resolver returns null or throws) turns its property
 * into the empty schema `{}` (literally, as CONTRACT §4 says) with an `unresolvable_reference`
 * warning; it never fails the render. Each distinct (URL, list) is resolved once. An empty list
 * becomes `enum: []` in every shape (an empty `anyOf`/`oneOf` is not valid JSON Schema), with a
 * warning. A resolver answer that is not a list of `{value, display}` strings is a
 * `schema_rendering_error` (the property is blanked as well).
 */
import { parseChoiceReference } from './choice-reference.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { isJsonObject, joinPointer, parsePointer, setKey, type JsonObject } from './json-pointer.js';
import { normaliseDocument } from './normalise.js';
import { cloneJson, forEachSchema, renameKey, rewriteSchema } from './schema-walk.js';

export interface ChoiceEntry {
  value: string;
  display: string;
}

export type ChoiceResolver = (request: { url: string; field: string }) =>
  Promise<ChoiceEntry[] | null> | ChoiceEntry[] | null;

export type ChoiceShape = 'anyOf' | 'oneOf' | 'enum';
export const CHOICE_SHAPES: readonly ChoiceShape[] = ['anyOf', 'oneOf', 'enum'];

export interface PreRenderOptions {
  shape?: ChoiceShape;
  /**
   * Keep the root `unevaluatedProperties: false` (default false: served documents drop it, as
   * the specification says). The server validating `event_details` may want it kept, so that
   * undeclared fields are rejected.
   */
  keepRootClosure?: boolean;
}

export interface PreRenderResult {
  document: unknown;
  issues: SchemaIssue[];
}

type Resolution = { entries: ChoiceEntry[] } | { failure: 'unresolvable' | 'malformed' };

export async function preRender(doc: unknown, resolver: ChoiceResolver, options: PreRenderOptions = {}): Promise<PreRenderResult> {
  const shape = options.shape ?? 'anyOf';
  if (!CHOICE_SHAPES.includes(shape)) throw new TypeError(`unknown choice shape: ${String(shape)}`);
  if (!isJsonObject(doc) || !isJsonObject(doc.json)) {
    return {
      document: cloneJson(doc),
      issues: [schemaIssue('schema_structure_error', { message: 'only a {json, ui} document can be pre-rendered', hints: ['validate the document first'] })],
    };
  }
  const normalised = normaliseDocument(doc) as JsonObject & { json: JsonObject };
  const resolutions = await resolveAll(collectRequests(normalised.json), resolver);
  const issues: SchemaIssue[] = [];
  const blanked = new Set<string>();
  forEachChoiceSite(normalised.json, (site, pointer) => {
    for (const { index, url, fields } of site) {
      for (const field of fields) {
        const resolution = resolutions.get(requestKey(url, field));
        if (!resolution || !('failure' in resolution)) continue;
        const property = propertyPointerOf(pointer);
        blanked.add(property);
        issues.push(failureIssue(resolution.failure, field, joinPointer(pointer, 'anyOf', index, '$ref'), property));
      }
    }
  });
  const json = rewriteSchema(normalised.json, '/json', (node, pointer) => {
    if (blanked.has(pointer)) return {};
    const site = choiceSite(node);
    if (site.length === 0) return node;
    return expand(node, site, resolutions, shape, pointer, issues);
  }) as JsonObject;
  if (json.unevaluatedProperties === false && !options.keepRootClosure) delete json.unevaluatedProperties;
  return { document: { ...normalised, json }, issues };
}

interface SiteEntry { index: number; url: string; fields: string[] }

/** The choice-reference entries of a schema's `anyOf`. */
function choiceSite(schema: JsonObject): SiteEntry[] {
  if (!Array.isArray(schema.anyOf)) return [];
  return schema.anyOf.flatMap((entry, index) => {
    if (!isJsonObject(entry) || typeof entry.$ref !== 'string') return [];
    const parsed = parseChoiceReference(entry.$ref);
    return parsed ? [{ index, url: entry.$ref, fields: parsed.fields }] : [];
  });
}

function forEachChoiceSite(json: JsonObject, visit: (site: SiteEntry[], pointer: string) => void): void {
  forEachSchema(json, '/json', (schema, pointer) => {
    const site = choiceSite(schema);
    if (site.length > 0) visit(site, pointer);
  });
}

const requestKey = (url: string, field: string): string => `${url}\n${field}`;

function collectRequests(json: JsonObject): Array<{ url: string; field: string }> {
  const requests = new Map<string, { url: string; field: string }>();
  forEachChoiceSite(json, (site) => {
    for (const { url, fields } of site) for (const field of fields) requests.set(requestKey(url, field), { url, field });
  });
  return [...requests.values()];
}

async function resolveAll(requests: Array<{ url: string; field: string }>, resolver: ChoiceResolver): Promise<Map<string, Resolution>> {
  const settled = await Promise.all(requests.map(async (request): Promise<[string, Resolution]> => {
    let answer: unknown;
    try {
      answer = await resolver({ ...request });
    } catch {
      answer = null;
    }
    return [requestKey(request.url, request.field), toResolution(answer)];
  }));
  return new Map(settled);
}

function toResolution(answer: unknown): Resolution {
  if (answer === null || answer === undefined) return { failure: 'unresolvable' };
  if (!Array.isArray(answer)) return { failure: 'malformed' };
  const entries: ChoiceEntry[] = [];
  for (const e of answer) {
    if (!isJsonObject(e) || typeof e.value !== 'string' || typeof e.display !== 'string') return { failure: 'malformed' };
    entries.push({ value: e.value, display: e.display });
  }
  return { entries };
}

/** The pointer of the field a schema belongs to: the nearest `.../properties/<name>` at or above it. */
function propertyPointerOf(pointer: string): string {
  const tokens = parsePointer(pointer);
  for (let n = tokens.length; n >= 2; n--) {
    if (tokens[n - 2] === 'properties') return joinPointer('', ...tokens.slice(0, n));
  }
  return pointer;
}

function failureIssue(failure: 'unresolvable' | 'malformed', field: string, refPointer: string, property: string): SchemaIssue {
  if (failure === 'malformed') {
    return schemaIssue('schema_rendering_error', {
      pointer: refPointer,
      message: `the choices of list \`${field}\` could not be rendered (not a list of {value, display}); \`${property}\` is served as \`{}\``,
      hints: ['check the choice source'],
    });
  }
  return schemaIssue('unresolvable_reference', {
    severity: 'warning', pointer: refPointer,
    message: `choice list \`${field}\` could not be resolved; \`${property}\` is served as an empty schema`,
    hints: ['check that the list exists, its site is reachable, and you may read its choices'],
  });
}

function expand(node: JsonObject, site: SiteEntry[], resolutions: Map<string, Resolution>, shape: ChoiceShape, pointer: string, issues: SchemaIssue[]): JsonObject {
  const entries: ChoiceEntry[] = [];
  for (const { url, fields } of site) {
    for (const field of fields) {
      const resolution = resolutions.get(requestKey(url, field));
      for (const entry of resolution && 'entries' in resolution ? resolution.entries : []) {
        if (!entries.some((e) => e.value === entry.value)) entries.push(entry);
      }
    }
  }
  const anyOf = node.anyOf as unknown[];
  const refIndexes = new Set(site.map((s) => s.index));
  const others = anyOf.filter((_, i) => !refIndexes.has(i));
  const consts = entries.map((e) => ({ const: e.value, title: e.display }));
  if (entries.length === 0 && others.length === 0) {
    issues.push(schemaIssue('unresolvable_reference', {
      severity: 'warning', pointer: joinPointer(pointer, 'anyOf'),
      message: 'the referenced choice list is empty; no value is accepted', hints: ['add choices to the list'],
    }));
    return renameKey(node, 'anyOf', 'enum', []);
  }
  if (shape === 'anyOf' || others.length > 0) {
    // NOTE: other `anyOf` entries next to choice references only fit the `anyOf` shape.
    return renameKey(node, 'anyOf', 'anyOf', [...consts, ...others]);
  }
  if (shape === 'oneOf') return renameKey(node, 'anyOf', 'oneOf', consts);
  const extra: JsonObject = {};
  for (const e of entries) setKey(extra, e.value, { display: e.display });
  const withEnum = renameKey(node, 'anyOf', 'enum', entries.map((e) => e.value));
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(withEnum)) {
    if (k === 'x-enumExtra') continue;
    setKey(out, k, v);
    if (k === 'enum') out['x-enumExtra'] = extra;
  }
  return out;
}
