/**
 * How deeply subschemas nest. Ajv validates a schema against the meta-schema and compiles it by
 * recursion: at ~800 levels it overflows the stack, and well before that compiling costs seconds
 * (~1 s at 400 levels, growing faster than the depth). Event type schemas nest a few levels
 * (collections of objects), so documents deeper than `MAX_SCHEMA_DEPTH` are refused when written,
 * before any recursive check runs. The walk is iterative and stops at the first path too deep.
 */
import { isJsonObject } from './json-pointer.js';
import { childSchemas } from './schema-walk.js';

export const MAX_SCHEMA_DEPTH = 32;

/** The pointer of the first subschema nested deeper than `max`, or undefined. */
export function tooDeepAt(json: unknown, base: string, max = MAX_SCHEMA_DEPTH): string | undefined {
  const stack: Array<[unknown, string, number]> = [[json, base, 0]];
  while (stack.length > 0) {
    const [node, pointer, depth] = stack.pop()!;
    if (!isJsonObject(node)) continue;
    if (depth > max) return pointer;
    for (const [keyword, value] of Object.entries(node)) {
      for (const [child, childPointer] of childSchemas(keyword, value, pointer)) stack.push([child, childPointer, depth + 1]);
    }
  }
  return undefined;
}
