/**
 * How deep a request's JSON may nest before anything recursive (hashing, canonical JSON, the
 * services) sees it. Deeper bodies are refused with 400 `too_deep`.
 */
export const MAX_BODY_DEPTH = 64;

/** Whether a JSON value nests deeper than `limit` (iterative: a deep value must not exhaust the stack here). */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
