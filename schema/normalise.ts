/**
 * `normaliseDocument`: the form a schema is stored in (specification, "Writing a schema" 6).
 * - `additionalProperties: false` becomes `unevaluatedProperties: false`, in every subschema,
 *   in the same key position. (When a subschema already has `unevaluatedProperties`, the two are
 *   left alone: rewriting would change its meaning.)
 * - an array whose `items` is an object schema (a collection, or an attachment list) gets
 *   `unevaluatedItems: false` when it has no `unevaluatedItems`.
 * - (CONTRACT §11) only COLLECTION arrays: a top-level property that `ui.fields` marks
 *   `ATTACHMENT` is left as sent; and a legacy `ui.fields[*].choices` (an array, or on a field
 *   that is not a CHOICE_LIST) is dropped.
 * Idempotent; returns a new document and never modifies its input. Anything that is not a
 * `{json: object}` envelope is returned as a copy, unchanged.
 */
import { isJsonObject, setKey, type JsonObject } from './json-pointer.js';
import { cloneJson, renameKey, rewriteSchema } from './schema-walk.js';

export function normaliseDocument<T>(doc: T): T {
  if (!isJsonObject(doc) || !isJsonObject(doc.json)) return cloneJson(doc);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(doc)) {
    setKey(out, key, key === 'json' ? normaliseJsonSchema(value, attachmentFields(doc.ui)) : key === 'ui' ? dropLegacyChoices(value) : cloneJson(value));
  }
  return out as T;
}

/** The same rules applied to a bare JSON Schema. */
export function normaliseJsonSchema(schema: unknown, attachments: ReadonlySet<string> = new Set()): unknown {
  return rewriteSchema(schema, '', (node, pointer) => {
    let out = node;
    if (out.additionalProperties === false && !('unevaluatedProperties' in out)) {
      out = renameKey(out, 'additionalProperties', 'unevaluatedProperties');
    }
    if (isObjectArray(out) && !('unevaluatedItems' in out) && !attachments.has(pointer)) {
      out = { ...out, unevaluatedItems: false };
    }
    return out;
  });
}

function isObjectArray(schema: JsonObject): boolean {
  const items = schema.items;
  return schema.type === 'array' && isJsonObject(items) && (items.type === 'object' || isJsonObject(items.properties));
}

/** Pointers (`/properties/<name>`) of the top-level fields the UI marks as attachments. */
function attachmentFields(ui: unknown): ReadonlySet<string> {
  const fields = isJsonObject(ui) && isJsonObject(ui.fields) ? ui.fields : {};
  const names = Object.entries(fields).filter(([, field]) => isJsonObject(field) && field.type === 'ATTACHMENT').map(([name]) => name);
  return new Set(names.map((name) => `/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`));
}

function dropLegacyChoices(ui: unknown): unknown {
  const out = cloneJson(ui);
  if (!isJsonObject(out) || !isJsonObject(out.fields)) return out;
  for (const field of Object.values(out.fields)) {
    if (isJsonObject(field) && 'choices' in field && (field.type !== 'CHOICE_LIST' || !isJsonObject(field.choices))) delete field.choices;
  }
  return out;
}
