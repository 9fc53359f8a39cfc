/**
 * The single-schema read (CONTRACT §4): a stored document is served as it is when it is a
 * `{json, ui}` object (the empty envelope included); otherwise the read is a 422 with one
 * issue. Stored text (a JSON string) is parsed first.
 */
import { checkEnvelope, describe } from './envelope.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { isJsonObject } from './json-pointer.js';
import { parseJsonText } from './json-text.js';

export type StoredDocumentClass =
  | { ok: true; document: { json: Record<string, unknown>; ui: Record<string, unknown> } & Record<string, unknown> }
  | { ok: false; issues: SchemaIssue[] };

export function classifyStoredDocument(stored: unknown): StoredDocumentClass {
  let doc = stored;
  if (typeof stored === 'string') {
    const parsed = parseJsonText(stored);
    if (!parsed.ok) return { ok: false, issues: [parsed.issue] };
    doc = parsed.value;
  }
  if (doc === null || doc === undefined || (isJsonObject(doc) && Object.keys(doc).length === 0)) {
    return {
      ok: false,
      issues: [schemaIssue('no_schema_defined', {
        message: 'no schema is defined for this type',
        hints: ['write a schema with PUT or PATCH (`"schema": {"json": {...}, "ui": {...}}`)'],
      })],
    };
  }
  const envelope = checkEnvelope(doc);
  if (!envelope.json || !envelope.ui) {
    const shape = envelope.issues.filter((i) => i.pointer === '' || i.pointer === '/json' || i.pointer === '/ui');
    return {
      ok: false,
      issues: shape.length > 0 ? shape : [schemaIssue('schema_structure_error', {
        message: `the stored schema is ${describe(doc)}, not a {json, ui} object`, hints: ['write the schema again'],
      })],
    };
  }
  return { ok: true, document: doc as { json: Record<string, unknown>; ui: Record<string, unknown> } };
}
