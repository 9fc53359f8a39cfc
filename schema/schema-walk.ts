/**
 * Walking and rewriting the subschemas of a JSON Schema document, with JSON Pointers.
 * Values of `const`, `enum`, `default` and `examples` are data, never walked.
 */
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from './keywords.js';
import { isJsonObject, joinPointer, setKey, type JsonObject } from './json-pointer.js';

export type SchemaVisitor = (schema: JsonObject, pointer: string) => void;

/** Calls `visit` for `schema` and every object subschema below it, parents first. */
export function forEachSchema(schema: unknown, pointer: string, visit: SchemaVisitor): void {
  if (!isJsonObject(schema)) return;
  visit(schema, pointer);
  for (const [keyword, value] of Object.entries(schema)) {
    for (const [child, childPointer] of childSchemas(keyword, value, pointer)) {
      forEachSchema(child, childPointer, visit);
    }
  }
}

/** The subschemas held by one keyword of a schema, with their pointers. */
export function childSchemas(keyword: string, value: unknown, pointer: string): Array<[unknown, string]> {
  const here = joinPointer(pointer, keyword);
  if (SINGLE_SCHEMA_KEYWORDS.has(keyword)) {
    // `items` as an array is draft-04 tuple validation
    if (Array.isArray(value)) return value.map((v, i) => [v, joinPointer(here, i)]);
    return [[value, here]];
  }
  if (SCHEMA_ARRAY_KEYWORDS.has(keyword) && Array.isArray(value)) {
    return value.map((v, i) => [v, joinPointer(here, i)]);
  }
  if (SCHEMA_MAP_KEYWORDS.has(keyword) && isJsonObject(value)) {
    return Object.entries(value)
      .filter(([, v]) => !Array.isArray(v))
      .map(([name, v]) => [v, joinPointer(here, name)]);
  }
  return [];
}

export type SchemaRewriter = (schema: JsonObject, pointer: string) => unknown;

/**
 * Returns a rewritten copy: children are rewritten first, then `rewrite` is applied to the node
 * (post-order), so a rewriter sees already-rewritten children. Key order is preserved; the input
 * is never modified. Non-object schemas (booleans) are copied as they are.
 */
export function rewriteSchema(schema: unknown, pointer: string, rewrite: SchemaRewriter): unknown {
  if (!isJsonObject(schema)) return cloneJson(schema);
  const out: JsonObject = {};
  for (const [keyword, value] of Object.entries(schema)) {
    setKey(out, keyword, rewriteKeyword(keyword, value, pointer, rewrite));
  }
  return rewrite(out, pointer);
}

function rewriteKeyword(keyword: string, value: unknown, pointer: string, rewrite: SchemaRewriter): unknown {
  const here = joinPointer(pointer, keyword);
  if (SINGLE_SCHEMA_KEYWORDS.has(keyword)) {
    if (Array.isArray(value)) return value.map((v, i) => rewriteSchema(v, joinPointer(here, i), rewrite));
    return rewriteSchema(value, here, rewrite);
  }
  if (SCHEMA_ARRAY_KEYWORDS.has(keyword) && Array.isArray(value)) {
    return value.map((v, i) => rewriteSchema(v, joinPointer(here, i), rewrite));
  }
  if (SCHEMA_MAP_KEYWORDS.has(keyword) && isJsonObject(value)) {
    const map: JsonObject = {};
    for (const [name, v] of Object.entries(value)) {
      setKey(map, name, Array.isArray(v) ? cloneJson(v) : rewriteSchema(v, joinPointer(here, name), rewrite));
    }
    return map;
  }
  return cloneJson(value);
}

/** Deep copy of a JSON value (key order kept). */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setKey(out, k, cloneJson(v));
    return out as T;
  }
  return value;
}

/** Copy of `obj` with key `from` renamed to `to` in the same position (an existing `to` is dropped). */
export function renameKey(obj: JsonObject, from: string, to: string, value?: unknown): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === to && k !== from) continue;
    if (k === from) setKey(out, to, value === undefined ? v : value);
    else setKey(out, k, v);
  }
  return out;
}
