/**
 * Draft-04 → 2020-12 keyword conversion of a v1 schema, done before fields are converted so that
 * warnings point into the v1 document:
 * - `exclusiveMinimum`/`exclusiveMaximum` booleans become the numeric forms;
 * - `definitions` → `$defs` (and `#/definitions/` references follow); `id` is dropped;
 * - array `items` → `prefixItems`, then `additionalItems` → `items`;
 * - `dependencies` → `dependentRequired` (name lists) and `dependentSchemas` (schemas);
 * - `readonly` → `readOnly`; a nested `$schema` and draft-03 `required: true|false` are dropped;
 * - any other keyword unknown to 2020-12 is dropped with a warning (vendor `x-` keys are kept).
 * `enum`, `enumNames` and `key` are left for the field conversion, which turns them into choice
 * references.
 */
import { schemaIssue, type SchemaIssue } from '../issues.js';
import { isJsonObject, joinPointer, type JsonObject } from '../json-pointer.js';
import { isExtensionKeyword, KEYWORDS_2020_12 } from '../keywords.js';
import { renameKey, rewriteSchema } from '../schema-walk.js';

const FIELD_KEYS = new Set(['enumNames', 'key']);

export function convertDraft04(schema: JsonObject, base: string, warn: (issue: SchemaIssue) => void): JsonObject {
  const note = (pointer: string, message: string, hint: string): void =>
    warn(schemaIssue('migration_warning', { severity: 'warning', pointer, message, hints: [hint] }));
  return rewriteSchema(schema, base, (node, pointer) => {
    let out = node;
    if (pointer !== base && '$schema' in out) out = without(out, '$schema');
    for (const [exclusive, inclusive] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      const flag = out[exclusive];
      if (typeof flag !== 'boolean') continue;
      out = flag && typeof out[inclusive] === 'number'
        ? without(renameKey(out, exclusive, exclusive, out[inclusive]), inclusive)
        : without(out, exclusive);
    }
    if (isJsonObject(out.definitions)) out = renameKey(out, 'definitions', '$defs');
    if (typeof out.$ref === 'string' && out.$ref.startsWith('#/definitions/')) {
      out = { ...out, $ref: '#/$defs/' + out.$ref.slice('#/definitions/'.length) };
    }
    if (typeof out.id === 'string') {
      note(joinPointer(pointer, 'id'), '`id` (draft-04 schema identifier) is dropped', 'v2 documents are identified by their event type');
      out = without(out, 'id');
    }
    if (Array.isArray(out.items)) {
      const tuple = out.items;
      const rest = out.additionalItems;
      out = renameKey(without(out, 'additionalItems'), 'items', 'prefixItems', tuple);
      if (rest !== undefined) out = { ...out, items: rest };
    } else if ('additionalItems' in out) {
      out = without(out, 'additionalItems');
    }
    if (isJsonObject(out.dependencies)) out = splitDependencies(out);
    if (typeof out.readonly === 'boolean') out = renameKey(out, 'readonly', 'readOnly');
    if (typeof out.required === 'boolean') {
      note(joinPointer(pointer, 'required'), 'draft-03 `required: true|false` on a property is dropped', 'list required fields in the parent `required` array');
      out = without(out, 'required');
    }
    for (const keyword of Object.keys(out)) {
      if (KEYWORDS_2020_12.has(keyword) || FIELD_KEYS.has(keyword) || isExtensionKeyword(keyword)) continue;
      note(joinPointer(pointer, keyword), `\`${keyword}\` is not a JSON Schema 2020-12 keyword and is dropped`, 'carry the information in `title` or `description` if it matters');
      out = without(out, keyword);
    }
    return out;
  }) as JsonObject;
}

function without(obj: JsonObject, key: string): JsonObject {
  const out = { ...obj };
  delete out[key];
  return out;
}

function splitDependencies(node: JsonObject): JsonObject {
  const required: JsonObject = {};
  const schemas: JsonObject = {};
  for (const [name, value] of Object.entries(node.dependencies as JsonObject)) {
    if (Array.isArray(value)) required[name] = value;
    else schemas[name] = value;
  }
  const out = without(node, 'dependencies');
  if (Object.keys(required).length) out.dependentRequired = required;
  if (Object.keys(schemas).length) out.dependentSchemas = schemas;
  return out;
}
