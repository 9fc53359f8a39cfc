/** RFC 6901 JSON Pointer helpers. */

export function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `joinPointer('/json', 'properties', 'a/b')` → `/json/properties/a~1b`. */
export function joinPointer(base: string, ...tokens: Array<string | number>): string {
  return base + tokens.map((t) => '/' + escapePointerToken(t)).join('');
}

/** Splits a pointer into unescaped tokens; `''` → `[]`. Throws on a pointer not starting with `/`. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`invalid JSON Pointer: ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split('/').map(unescapePointerToken);
}

/** The value at `pointer` inside `root`, or `undefined`. */
export function getAtPointer(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isJsonObject(node)) {
      if (!Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets an own enumerable property. NOTE: a plain assignment of the key `__proto__` (legal in
 * JSON, and `JSON.parse` creates it as an own property) would replace the prototype instead.
 */
export function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/**
 * An index of pointers answering "is `pointer`, or anything below it, in the set?" in
 * O(log n) string comparisons, so checking every location of a large document against every
 * issue found in it stays O(n log n) instead of O(n²).
 */
export function pointerSetIndex(pointers: Iterable<string>): { atOrBelow(pointer: string): boolean; below(pointer: string): boolean } {
  const sorted = [...new Set(pointers)].sort();
  const firstAtLeast = (key: string): number => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((sorted[mid] as string) < key) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  // Every pointer starting with `p/` sorts at or after `p/` and before any pointer that does not.
  const below = (pointer: string): boolean => (sorted[firstAtLeast(pointer + '/')] ?? '').startsWith(pointer + '/');
  return {
    below,
    atOrBelow: (pointer) => sorted[firstAtLeast(pointer)] === pointer || below(pointer),
  };
}
