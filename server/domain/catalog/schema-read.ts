import {
  batchStatus, classifyStoredDocument, errorsOf, preRender, validateDocument,
  type BatchStatus, type ChoiceResolver, type ChoiceShape, type SchemaIssue,
} from '../../../schema/index.js';

export interface SchemaReadOptions {
  preRender: boolean;
  shape: ChoiceShape;
  resolver: ChoiceResolver;
}

export type SchemaRead = { ok: true; document: unknown; issues: SchemaIssue[] } | { ok: false; issues: SchemaIssue[] };

/**
 * Reads a stored `{json, ui}` document for serving: 422 material when it is empty or not an
 * envelope; otherwise the document as stored, or pre-rendered (choices expanded through the
 * resolver, unresolvable references reported as warnings, never as failures).
 */
export async function readStoredSchema(stored: string, options: SchemaReadOptions): Promise<SchemaRead> {
  const classified = classifyStoredDocument(stored);
  if (!classified.ok) return { ok: false, issues: classified.issues };
  if (!options.preRender) return { ok: true, document: classified.document, issues: [] };
  const rendered = await preRender(classified.document, options.resolver, { shape: options.shape });
  return { ok: true, document: rendered.document, issues: rendered.issues };
}

export interface BatchEntry {
  value: string;
  status: BatchStatus;
  schema: unknown;
  errors?: Array<Pick<SchemaIssue, 'code' | 'category' | 'message' | 'hints' | 'pointer'>>;
}

/**
 * One entry of a `/schemas` batch: the stored document checked again with every rule (it may
 * predate them), pre-rendered when asked. `failure` on validation or ui errors, `partial` on
 * other errors or unresolved references, else `success`.
 */
export async function batchEntry(value: string, stored: string, options: SchemaReadOptions): Promise<BatchEntry> {
  const read = await readStoredSchema(stored, options);
  if (!read.ok) return { value, status: 'failure', schema: null, errors: read.issues.map(entry) };
  const validation = errorsOf(validateDocument(JSON.parse(stored)).issues);
  const problems = [...validation, ...read.issues.map((issue) => ({ ...issue, severity: 'error' as const }))];
  const status = batchStatus(problems);
  return status === 'success' ? { value, status, schema: read.document } : { value, status, schema: read.document, errors: problems.map(entry) };
}

const entry = (issue: SchemaIssue) => ({ code: issue.code, category: issue.category, message: issue.message, hints: issue.hints, pointer: issue.pointer });
