/**
 * Canonical JSON text: object keys sorted, so documents that differ only in key order compare
 * equal. Bounded: data nested deeper than `MAX_VALUE_DEPTH` is refused (schemas themselves are
 * depth-checked before, with `tooDeepAt`); the work is linear in the size of the value.
 */
import { isJsonObject } from '../json-pointer.js';
import { MAX_VALUE_DEPTH, SchemaDiffLimitError } from './types.js';

export function canonicalJson(value: unknown, pointer = '', depth = 0): string {
  if (depth > MAX_VALUE_DEPTH) throw new SchemaDiffLimitError(`values nest deeper than ${MAX_VALUE_DEPTH} levels`, pointer);
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v, pointer, depth + 1)).join(',') + ']';
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(value[k], pointer, depth + 1)).join(',') + '}';
  }
  // undefined (absent) and non-JSON values: a stable marker that equals only itself
  return value === undefined ? 'undefined' : JSON.stringify(value) ?? 'null';
}

/** Canonical text of `obj` without the keys `skip` matches ('' when nothing is left). */
export function canonicalRest(obj: Record<string, unknown>, skip: (key: string) => boolean, pointer: string): string {
  const keys = Object.keys(obj).filter((k) => !skip(k));
  if (keys.length === 0) return '';
  keys.sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k], pointer, 1)).join(',') + '}';
}
