/**
 * `normaliseDocument`: the form a schema is stored in (specification, "Writing a schema" 6).
 * - `additionalProperties: false` becomes `unevaluatedProperties: false`, in every subschema,
 *   in the same key position. (When a subschema already has `unevaluatedProperties`, the two are
 *   left alone: rewriting would change its meaning.)
 * - an array whose `items` is an object schema (a collection, or an attachment list) gets
 *   `unevaluatedItems: false` when it has no `unevaluatedItems`.
 * Idempotent; returns a new document and never modifies its input. Anything that is not a
 * `{json: object}` envelope is returned as a copy, unchanged.
 */
import { isJsonObject, setKey, type JsonObject } from './json-pointer.js';
import { cloneJson, renameKey, rewriteSchema } from './schema-walk.js';

export function normaliseDocument<T>(doc: T): T {
  if (!isJsonObject(doc) || !isJsonObject(doc.json)) return cloneJson(doc);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(doc)) {
    setKey(out, key, key === 'json' ? normaliseJsonSchema(value) : cloneJson(value));
  }
  return out as T;
}

/** The same rules applied to a bare JSON Schema. */
export function normaliseJsonSchema(schema: unknown): unknown {
  return rewriteSchema(schema, '', (node) => {
    let out = node;
    if (out.additionalProperties === false && !('unevaluatedProperties' in out)) {
      out = renameKey(out, 'additionalProperties', 'unevaluatedProperties');
    }
    if (isObjectArray(out) && !('unevaluatedItems' in out)) {
      out = { ...out, unevaluatedItems: false };
    }
    return out;
  });
}

function isObjectArray(schema: JsonObject): boolean {
  const items = schema.items;
  return schema.type === 'array' && isJsonObject(items) && (items.type === 'object' || isJsonObject(items.properties));
}
