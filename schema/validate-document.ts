/**
 * `validateDocument`: every rule for a `{json, ui}` event type or patrol type schema, all
 * problems at once, each with a pointer and a hint. `valid` means "no errors"; warnings are
 * advice (the CLI linter prints them, the server stores the document anyway).
 *
 * `json: {}` means "no data schema written yet" and skips the `json` rules, so the empty
 * envelope `{"json": {}, "ui": {}}` is valid.
 */
import { checkEnvelope } from './envelope.js';
import type { FieldInfo } from './field-kinds.js';
import { errorsOf, type SchemaIssue } from './issues.js';
import { checkJsonMember, type JsonCheckOptions } from './json-checks.js';
import type { ChoiceReferenceSite } from './references.js';
import { uiFieldIssues } from './ui-fields.js';
import { layoutIssues, uiMembers } from './ui-layout.js';

export interface ValidateOptions extends JsonCheckOptions {}

export interface DocumentValidation {
  valid: boolean;
  issues: SchemaIssue[];
}

export interface DocumentAnalysis extends DocumentValidation {
  /** Top-level fields of `json`, classified (empty when `json` is unusable). */
  fields: Map<string, FieldInfo>;
  choiceReferences: ChoiceReferenceSite[];
}

export function validateDocument(doc: unknown, options: ValidateOptions = {}): DocumentValidation {
  const { valid, issues } = analyseDocument(doc, options);
  return { valid, issues };
}

/** `validateDocument` plus what was learnt on the way (used by lint rules and migration). */
export function analyseDocument(doc: unknown, options: ValidateOptions = {}): DocumentAnalysis {
  const envelope = checkEnvelope(doc);
  const issues = [...envelope.issues];
  let fields = new Map<string, FieldInfo>();
  let choiceReferences: ChoiceReferenceSite[] = [];
  if (envelope.json && Object.keys(envelope.json).length > 0) {
    const checked = checkJsonMember(envelope.json, '/json', options);
    issues.push(...checked.issues);
    fields = checked.fields;
    choiceReferences = checked.choiceReferences;
  }
  if (envelope.ui) {
    const members = uiMembers(envelope.ui);
    issues.push(...members.issues);
    issues.push(...layoutIssues({ ui: envelope.ui, uiFields: members.fields, sections: members.sections, headers: members.headers, fields }));
    issues.push(...uiFieldIssues(members.fields, { fields, sectionKeys: new Set(Object.keys(members.sections)) }));
  }
  return { valid: errorsOf(issues).length === 0, issues, fields, choiceReferences };
}
