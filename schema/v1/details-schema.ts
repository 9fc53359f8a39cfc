/**
 * `v1DetailsSchema`: the `schema` of a rendered v1 document as a 2020-12 schema that validates
 * an event's `event_details` (CONTRACT §11):
 * - the root `$schema` (draft-04, which a 2020-12 validator cannot load) and `id` are dropped,
 *   then the draft-04 keywords are converted (`convertDraft04`);
 * - the v1 pseudo-type `checkboxes` on a property (real documents use it: the mobile app's mock
 *   of the original server in the shared corpus, our demo `fence_patrol_rep`; it is no JSON
 *   Schema type, so the schema would not compile) becomes what angular-schema-form posts for it:
 *   a list of distinct strings, limited to the values of the property's rendered `titleMap` in
 *   the form definition when it has a non-empty one.
 * The rendered document served to v1 clients is not changed: they read `checkboxes` as before.
 * Null when the document has no `schema` object.
 */
import { isJsonObject, type JsonObject } from '../json-pointer.js';
import { rewriteSchema } from '../schema-walk.js';
import { convertDraft04 } from './draft04.js';

export function v1DetailsSchema(document: Record<string, unknown>): JsonObject | null {
  const schema = document.schema;
  if (!isJsonObject(schema)) return null;
  const { $schema: _draft, id: _id, ...root } = schema;
  const definition = Array.isArray(document.definition) ? document.definition : Array.isArray(schema.definition) ? schema.definition : [];
  const choices = titleMapValues(definition);
  const converted = convertDraft04(root, '', () => undefined);
  return rewriteSchema(converted, '', (node, pointer) => {
    if (node.type !== 'checkboxes') return node;
    const name = /^\/properties\/([^/]+)$/.exec(pointer)?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
    const values = name === undefined ? undefined : choices.get(name);
    const items: JsonObject = values?.length ? { type: 'string', enum: values } : { type: 'string' };
    return { ...node, type: 'array', uniqueItems: true, items };
  }) as JsonObject;
}

/** The values of each keyed definition entry's `titleMap` (a list of `{value, name}` or a `{value: name}` map). */
function titleMapValues(definition: unknown[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const visit = (entries: unknown[]): void => {
    for (const entry of entries) {
      if (!isJsonObject(entry)) continue;
      const map = entry.titleMap;
      if (typeof entry.key === 'string' && !out.has(entry.key) && map !== undefined) {
        if (Array.isArray(map)) out.set(entry.key, map.filter(isJsonObject).map((item) => item.value).filter((value) => typeof value === 'string'));
        else if (isJsonObject(map)) out.set(entry.key, Object.keys(map));
      }
      if (Array.isArray(entry.items)) visit(entry.items);
    }
  };
  visit(definition);
  return out;
}
