/**
 * Ajv errors of `event_details` turned into issues. The work is linear in the number of errors
 * (each error is looked at a bounded number of times) and the answer is capped: at most
 * `MAX_DETAILS_ISSUES` issues, then one `issues_truncated` entry counting the rest, so an
 * 11 KB body of 1,500 wrong choices costs milliseconds, not (as it did, cubically) 47 seconds.
 *
 * An `anyOf`/`oneOf` failure is one issue ("not one of the allowed choices", or the distinct
 * reasons of its alternatives); the errors of its alternatives at the same data location are
 * folded into it. With nested alternatives, an error belongs to the innermost one.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { MAX_REPORTED_ISSUES, schemaIssue, truncatedIssue, type SchemaIssue } from './issues.js';
import { joinPointer } from './json-pointer.js';

/** Issues reported for one `event_details` value; the rest are only counted. */
export const MAX_DETAILS_ISSUES = MAX_REPORTED_ISSUES;
/** Allowed values quoted in one hint. */
const MAX_SHOWN_VALUES = 20;
/** Distinct alternative reasons quoted for one `anyOf`/`oneOf` failure. */
const MAX_SHOWN_REASONS = 5;

const BRANCH_KEYWORDS = new Set(['anyOf', 'oneOf']);
const BRANCH_SEGMENT = /\/(?:anyOf|oneOf)(?=\/)/g;

export function toIssues(errors: readonly ErrorObject[], max = MAX_DETAILS_ISSUES): SchemaIssue[] {
  const branches = new Map<string, ErrorObject>();
  for (const error of errors) {
    if (BRANCH_KEYWORDS.has(error.keyword)) branches.set(branchKey(error.instancePath, error.schemaPath), error);
  }
  const inner = new Map<ErrorObject, ErrorObject[]>();
  const topLevel: ErrorObject[] = [];
  for (const error of errors) {
    const owner = branches.size > 0 ? owningBranch(error, branches) : undefined;
    if (!owner) {
      topLevel.push(error);
      continue;
    }
    const list = inner.get(owner);
    if (list) list.push(error);
    else inner.set(owner, [error]);
  }
  const issues: SchemaIssue[] = [];
  for (const error of topLevel.slice(0, max)) {
    issues.push(BRANCH_KEYWORDS.has(error.keyword) ? branchIssue(error, inner.get(error) ?? []) : plainIssue(error));
  }
  if (topLevel.length > max) issues.push(truncatedIssue(topLevel.length - max, topLevel.length));
  return issues;
}

const branchKey = (instancePath: string, schemaPath: string): string => `${instancePath}\n${schemaPath}`;

/**
 * The innermost `anyOf`/`oneOf` error at the same data location whose schema path is a proper
 * prefix of this error's. Only prefixes ending in an `anyOf`/`oneOf` segment can be one, so the
 * cost is the length of the schema path, whatever the number of errors.
 */
function owningBranch(error: ErrorObject, branches: Map<string, ErrorObject>): ErrorObject | undefined {
  let owner: ErrorObject | undefined;
  for (const match of error.schemaPath.matchAll(BRANCH_SEGMENT)) {
    const candidate = branches.get(branchKey(error.instancePath, error.schemaPath.slice(0, match.index + match[0].length)));
    if (candidate && candidate !== error) owner = candidate;
  }
  return owner;
}

function branchIssue(branch: ErrorObject, inner: ErrorObject[]): SchemaIssue {
  const allowed: unknown[] = [];
  let more = false;
  for (const e of inner) {
    const values = e.keyword === 'const' ? [e.params.allowedValue] : e.keyword === 'enum' ? (e.params.allowedValues as unknown[]) : [];
    for (const value of values) {
      if (allowed.length < MAX_SHOWN_VALUES) allowed.push(value);
      else more = true;
    }
  }
  const where = label(branch.instancePath);
  if (allowed.length > 0) {
    return detailsIssue(branch.instancePath, `${where} is not one of the allowed choices`, [`use one of: ${shownValues(allowed, more)}`]);
  }
  const reasons = new Set<string>();
  for (const e of inner) {
    if (reasons.size >= MAX_SHOWN_REASONS) break;
    reasons.add(e.message ?? e.keyword);
  }
  return detailsIssue(branch.instancePath, `${where} ${branch.message ?? 'matches none of the alternatives'}`,
    reasons.size > 0 ? [...reasons].map((r) => `one alternative says: ${r}`) : ['check the value against the event type schema']);
}

function plainIssue(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  const path = error.instancePath;
  switch (error.keyword) {
    case 'required': {
      const name = String(params.missingProperty);
      return detailsIssue(joinPointer(path, name), `${label(joinPointer(path, name))} is required`, [`give a value for \`${name}\``]);
    }
    case 'unevaluatedProperties':
    case 'additionalProperties': {
      const name = String(params.unevaluatedProperty ?? params.additionalProperty);
      return detailsIssue(joinPointer(path, name), `${label(joinPointer(path, name))} is not a field of this event type`, ['remove it, or add the field to the event type schema']);
    }
    case 'enum': {
      const values = params.allowedValues as unknown[];
      return detailsIssue(path, `${label(path)} is not one of the allowed values`,
        [`use one of: ${shownValues(values.slice(0, MAX_SHOWN_VALUES), values.length > MAX_SHOWN_VALUES)}`]);
    }
    case 'format':
      return detailsIssue(path, `${label(path)} must be a valid ${String(params.format)}`, [formatHint(String(params.format))]);
    default:
      return detailsIssue(path, `${label(path)} ${error.message ?? `fails \`${error.keyword}\``}`, [`see \`${error.keyword}\` at ${error.schemaPath} in the event type schema`]);
  }
}

const shownValues = (values: unknown[], more: boolean): string =>
  `${values.map((v) => JSON.stringify(v)).join(', ')}${more ? ', ...' : ''}`;

function formatHint(format: string): string {
  if (format === 'date-time') return 'use RFC 3339 with a time zone, e.g. 2026-11-20T10:00:00+00:00';
  if (format === 'time') return 'use RFC 3339 time with a time zone, e.g. 10:00:00Z';
  if (format === 'date') return 'use YYYY-MM-DD';
  return `give a valid ${format}`;
}

const label = (pointer: string): string => (pointer === '' ? 'event_details' : `\`${pointer.slice(1)}\``);

const detailsIssue = (pointer: string, message: string, hints: string[]): SchemaIssue =>
  schemaIssue('event_details_invalid', { pointer, message, hints });
