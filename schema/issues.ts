/**
 * Error entries of the schema toolkit (CONTRACT §4) and the batch status rule.
 *
 * Every problem the toolkit finds is one `SchemaIssue`: a stable machine `code`, the seed's
 * `category`, a human `message`, at least one `hint` saying how to fix it, and a JSON Pointer.
 * For document checks the pointer points into the `{json, ui}` envelope (e.g.
 * `/json/properties/age/minimum`); for event-details checks it points into the data.
 */

export type IssueCategory = 'validation' | 'reference' | 'rendering' | 'ui';
export type IssueSeverity = 'error' | 'warning';

/**
 * The CONTRACT §4 codes, plus five of our own (documented in schema/README.md):
 * - `ui_definition_error`: a `ui` entry has a wrong type or value (an unknown UI `type`, a bad
 *   `inputType`, ...). `ui_reference_error` stays reserved for names that name nothing.
 * - `event_details_invalid`: event data does not satisfy the (pre-rendered) event type schema.
 * - `v1_template_error`: a v1 template tag is malformed or cannot be rendered.
 * - `migration_warning`: v1 → v2 migration could not carry something over exactly.
 * - `issues_truncated`: the last entry of a capped list of issues, counting those not listed.
 */
export const ISSUE_CATEGORIES = {
  no_schema_defined: 'validation',
  schema_parsing_error: 'validation',
  schema_structure_error: 'validation',
  schema_validation_error: 'validation',
  schema_version_error: 'validation',
  ui_reference_error: 'ui',
  ui_definition_error: 'ui',
  unresolvable_reference: 'reference',
  schema_rendering_error: 'rendering',
  event_details_invalid: 'validation',
  v1_template_error: 'rendering',
  migration_warning: 'validation',
  issues_truncated: 'validation',
} as const satisfies Record<string, IssueCategory>;

export type IssueCode = keyof typeof ISSUE_CATEGORIES;

export interface SchemaIssue {
  code: IssueCode;
  category: IssueCategory;
  message: string;
  hints: string[];
  /** JSON Pointer; `''` is the whole document. */
  pointer: string;
  severity: IssueSeverity;
  /** 1-based source position, when the issue comes from source text (v1 templates, JSON syntax). */
  location?: { line: number; column: number };
}

export interface IssueInit {
  message: string;
  hints: string[];
  pointer?: string;
  severity?: IssueSeverity;
  location?: { line: number; column: number };
}

/** Builds an issue; the category always follows from the code so the two never disagree. */
export function schemaIssue(code: IssueCode, init: IssueInit): SchemaIssue {
  const issue: SchemaIssue = {
    code,
    category: ISSUE_CATEGORIES[code],
    message: init.message,
    hints: init.hints,
    pointer: init.pointer ?? '',
    severity: init.severity ?? 'error',
  };
  if (init.location) issue.location = init.location;
  return issue;
}

export function isError(issue: SchemaIssue): boolean {
  return issue.severity === 'error';
}

export function errorsOf(issues: readonly SchemaIssue[]): SchemaIssue[] {
  return issues.filter(isError);
}

export function warningsOf(issues: readonly SchemaIssue[]): SchemaIssue[] {
  return issues.filter((i) => !isError(i));
}

export type BatchStatus = 'success' | 'partial' | 'failure';

/**
 * CONTRACT §4: `failure` when any `validation` or `ui` category error, else `partial` when any
 * other error, else `success`. Warnings never count.
 */
export function batchStatus(issues: readonly SchemaIssue[]): BatchStatus {
  const errors = errorsOf(issues);
  if (errors.some((i) => i.category === 'validation' || i.category === 'ui')) return 'failure';
  return errors.length > 0 ? 'partial' : 'success';
}

/** Issues listed in one answer of the server; the rest are counted (`capIssues`). */
export const MAX_REPORTED_ISSUES = 100;

/**
 * The first `max` issues, then (when there are more) one `issues_truncated` entry counting the
 * rest, so an answer's size is bounded whatever the input: a 1 MB document can hold 40,000
 * mistakes, and listing them all would be a 10 MB answer.
 */
export function capIssues(issues: readonly SchemaIssue[], max = MAX_REPORTED_ISSUES): SchemaIssue[] {
  if (issues.length <= max) return [...issues];
  return [...issues.slice(0, max), truncatedIssue(issues.length - max, issues.length)];
}

export function truncatedIssue(rest: number, total: number): SchemaIssue {
  return schemaIssue('issues_truncated', {
    message: `${rest} more problem${rest === 1 ? '' : 's'} not listed (${total} in all; the first ${total - rest} are shown)`,
    hints: ['fix the problems listed and try again to see the rest'],
  });
}
