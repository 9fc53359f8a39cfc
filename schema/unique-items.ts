/**
 * `uniqueItems` in linear time. Ajv's own check compares every pair of items when it cannot
 * tell at compile time that the items are scalars (`{type: array, uniqueItems: true}` without an
 * item type): 16,000 small objects took 4.5 s, a 1 MB body minutes. Here each item is turned
 * into canonical JSON once (object keys sorted, so `{"a":1,"b":2}` equals `{"b":2,"a":1}`, as
 * JSON Schema equality says) and looked up in a map: O(total size of the array).
 */
import type { FuncKeywordDefinition } from 'ajv/dist/2020.js';
import { isJsonObject } from './json-pointer.js';

/** JSON text with object keys sorted: equal JSON values (JSON Schema equality) give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

interface UniqueItemsValidate {
  (schema: boolean, data: unknown[]): boolean;
  errors?: Array<{ keyword: string; message: string; params: { i: number; j: number } }>;
}

const validate: UniqueItemsValidate = (schema, data) => {
  validate.errors = undefined;
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonicalJson(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      validate.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i: j, j: i } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

/** Replaces Ajv's `uniqueItems` (ajv-factory.ts removes the built-in one first). */
export const UNIQUE_ITEMS_KEYWORD: FuncKeywordDefinition = {
  keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: validate as FuncKeywordDefinition['validate'],
};
