/**
 * The `{json, ui}` envelope. The specification says a document has exactly two members; we also
 * accept `auto-generate` (stored and served, no effect). `readonly`, `icon_id` and `image_url`
 * (properties of the type, sometimes pasted into its schema) are rejected by name, and so is any
 * other root key: storing unknown keys would hide typos such as `"UI"`.
 */
import { schemaIssue, type SchemaIssue } from './issues.js';
import { isJsonObject, joinPointer, type JsonObject } from './json-pointer.js';

export const ACCEPTED_ROOT_KEYS: ReadonlySet<string> = new Set(['json', 'ui', 'auto-generate']);
export const REJECTED_ROOT_KEYS: ReadonlySet<string> = new Set(['readonly', 'icon_id', 'image_url']);

export interface EnvelopeCheck {
  issues: SchemaIssue[];
  json?: JsonObject;
  ui?: JsonObject;
}

const SHAPE_HINT = 'a schema document is `{"json": {...JSON Schema 2020-12...}, "ui": {...}}`';

export function checkEnvelope(doc: unknown): EnvelopeCheck {
  if (!isJsonObject(doc)) {
    return {
      issues: [schemaIssue('schema_structure_error', {
        message: `the schema document must be an object, not ${describe(doc)}`, hints: [SHAPE_HINT],
      })],
    };
  }
  const issues: SchemaIssue[] = [];
  for (const key of Object.keys(doc)) {
    if (ACCEPTED_ROOT_KEYS.has(key)) continue;
    const rejected = REJECTED_ROOT_KEYS.has(key);
    issues.push(schemaIssue('schema_structure_error', {
      pointer: joinPointer('', key),
      message: rejected
        ? `\`${key}\` is a property of the type, not of its schema`
        : `unknown key \`${key}\` next to \`json\` and \`ui\``,
      hints: rejected
        ? [`remove \`${key}\` from the schema; set it on the type itself if it is writable`]
        : ['the only keys allowed are `json`, `ui` and `auto-generate`'],
    }));
  }
  const result: EnvelopeCheck = { issues };
  for (const member of ['json', 'ui'] as const) {
    const value = doc[member];
    if (isJsonObject(value)) {
      result[member] = value;
    } else {
      issues.push(schemaIssue('schema_structure_error', {
        pointer: `/${member}`,
        message: value === undefined ? `\`${member}\` is missing` : `\`${member}\` must be an object, not ${describe(value)}`,
        hints: [SHAPE_HINT, 'before a schema is written the document is `{"json": {}, "ui": {}}`'],
      }));
    }
  }
  return result;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
