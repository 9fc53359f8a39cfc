import { capIssues, errorsOf, normaliseDocument, validateDocument, type SchemaIssue } from '../../../schema/index.js';
import { type FieldIssue, InputError } from '../errors.js';

export const EMPTY_ENVELOPE_TEXT = '{"json":{},"ui":{}}';

/** A toolkit issue as an entry of the contract's error body. */
export function toFieldIssue(issue: SchemaIssue): FieldIssue {
  return { code: issue.code, category: issue.category, message: issue.message, hints: issue.hints, pointer: issue.pointer };
}

/**
 * "Writing a schema" rules 1–8, shared by patrol types and event types:
 * omitted → undefined (no-op); `null` → 400; anything else must pass every rule of the toolkit
 * (meta-schema, `$schema` URI, field kinds, ui references, envelope-root keys), failures
 * reported together under the error key `schema`; the stored text is the normalised document.
 */
export function schemaFromBody(body: Record<string, unknown>): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(body, 'schema')) return undefined;
  const document = body.schema;
  if (document === null) {
    throw new InputError('The schema may not be null.', {
      schema: [{ code: 'schema_structure_error', category: 'validation', message: '"schema": null is not allowed.', hints: ['Omit the schema key to keep the stored document.'], pointer: '' }],
    });
  }
  const { issues } = validateDocument(document);
  const errors = errorsOf(issues);
  if (errors.length > 0) throw new InputError('The schema is not valid.', { schema: capIssues(errors).map(toFieldIssue) });
  return JSON.stringify(normaliseDocument(document));
}
