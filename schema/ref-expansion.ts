/**
 * How many subschemas a document has once its local `$ref`s are followed: what a validator may
 * walk for one value. References can multiply it exponentially in a few hundred bytes
 * (`a: {allOf: [{$ref: b}, {$ref: b}]}`, `b: {allOf: [{$ref: c}, {$ref: c}]}`, ...: 2^30 after
 * 30 levels), so documents that expand past `MAX_EXPANDED_SUBSCHEMAS` are refused when written.
 *
 * Counted once per subschema (memoised), so the work is linear in the document. A reference back
 * into a subschema being counted (recursion) counts 1: recursion is bounded by the data's depth.
 * `#anchor` references count 1.
 */
import { getAtPointer, isJsonObject, joinPointer, type JsonObject } from './json-pointer.js';
import { childSchemas } from './schema-walk.js';

export const MAX_EXPANDED_SUBSCHEMAS = 200_000;

export function expandedSubschemaCount(json: JsonObject): number {
  const memo = new Map<JsonObject, number>();
  const counting = new Set<JsonObject>();
  const count = (node: unknown): number => {
    if (!isJsonObject(node)) return 1;
    const known = memo.get(node);
    if (known !== undefined) return known;
    if (counting.has(node)) return 1;
    counting.add(node);
    let total = 1;
    for (const [keyword, value] of Object.entries(node)) {
      for (const [child] of childSchemas(keyword, value, '')) total += count(child);
    }
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const target = targetOf(json, node.$ref);
      if (target !== undefined) total += count(target);
    }
    counting.delete(node);
    memo.set(node, total);
    return total;
  };
  return count(json);
}

function targetOf(json: JsonObject, ref: string): unknown {
  try {
    return getAtPointer(json, joinPointer('') + decodeURIComponent(ref.slice(1)));
  } catch {
    return undefined;
  }
}
