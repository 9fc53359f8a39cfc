/**
 * The hash that tells a replay from a reuse of the key: sha256 of the canonical JSON (object
 * keys sorted, no whitespace) of `[op, pathParams, body]`, or `[op, pathParams, body, query]`
 * when the route's query parameters that choose its target are given. A multipart upload hashes
 * its fields and its file's sha256 instead of the raw body, so that another boundary is the
 * same request.
 *
 * NOTE: a request without such query parameters hashes exactly as before they counted: keys
 * stored then still match their repeats.
 */
import { createHash } from 'node:crypto';

export function requestHash(op: string, params: Record<string, string>, body: unknown, query: Record<string, string> = {}): string {
  const parts: unknown[] = [op, params, body ?? null];
  if (Object.keys(query).length > 0) parts.push(query);
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/** JSON with object keys in code-point order; `undefined` members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}
