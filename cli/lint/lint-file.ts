/**
 * Lints the text of one file. What the file holds decides what is validated:
 * - a `{json, ui}` document: itself;
 * - a patrol or event type export (an object with a `schema` member, as the API returns it):
 *   its `schema`; a list of them (a bare array or a `{results: [...]}` page): each `schema`;
 * - a bundle (an object whose every member is a `{json, ui}` document, as fixture modules
 *   export them): each member;
 * - a v1 document (JSON, or with v1 template tags): reported (it needs `fieldops migrate`), not
 *   validated as v2;
 * - anything else: validated as a document when named explicitly (so the toolkit says what is
 *   wrong), skipped when it was found through a directory or a glob.
 * Every issue gets the file's line and column through the toolkit's pointer locator.
 */
import {
  analyseDocument, createPointerLocator, getAtPointer, joinPointer, parseJsonText, parseV1,
  type ChoicesByField, type IssueCategory, type SchemaIssue,
} from '../../schema/index.js';

export interface LintFinding {
  /** Pointer of the linted document inside the file ('' = the file is the document). */
  document: string;
  /** Pointer into the file. */
  pointer: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  code: string;
  /** `compatibility`: a finding of `--against` (the breaking-change lint, issue 28). */
  category: IssueCategory | 'compatibility';
  message: string;
  hints: string[];
  /** `--against` findings: stored events the change hurts (a lower bound when `affected_at_least`). */
  affected_events?: number;
  affected_at_least?: boolean;
  /** `--allow-breaking`: the break was allowed, with this reason (the finding is then a warning). */
  allowed?: { reason: string };
}

export type ContentKind = 'document' | 'type' | 'types' | 'bundle' | 'v1' | 'unrecognised' | 'invalid-json';

export interface FileLint {
  kind: ContentKind;
  documents: string[];
  findings: LintFinding[];
  /** Set when the file was not linted (found implicitly, no document in it). */
  skipped?: string;
}

export interface LintOptions {
  explicit: boolean;
  /** Choice lists known on the server (from the mirror): references to others are errors. */
  choices?: { active: ChoicesByField; known: ReadonlySet<string>; source: string };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isDocument = (value: unknown) => isObject(value) && ('json' in value || 'ui' in value);
const isTypeExport = (value: unknown) => isObject(value) && isObject(value.schema) && ('value' in value || 'id' in value || 'display' in value);
const isV1 = (value: unknown) =>
  isObject(value) && isObject(value.schema) && ('definition' in value || 'definition' in value.schema || /draft-0[34]/.test(String(value.schema.$schema ?? '')));

/** Where the documents of a file are, and what kind of file it is. */
export function classify(value: unknown): { kind: ContentKind; documents: string[] } {
  if (isDocument(value)) return { kind: 'document', documents: [''] };
  if (isV1(value)) return { kind: 'v1', documents: [] };
  if (isTypeExport(value)) return { kind: 'type', documents: ['/schema'] };
  const list = Array.isArray(value) ? { items: value, base: '' } : isObject(value) && Array.isArray(value.results) ? { items: value.results, base: '/results' } : null;
  if (list && list.items.length > 0 && list.items.every(isTypeExport)) {
    return { kind: 'types', documents: list.items.map((_, i) => joinPointer(list.base, i, 'schema')) };
  }
  if (isObject(value) && Object.keys(value).length > 0 && Object.values(value).every(isDocument)) {
    return { kind: 'bundle', documents: Object.keys(value).map((key) => joinPointer('', key)) };
  }
  return { kind: 'unrecognised', documents: [] };
}

/** Native JSON.parse first (fast); the toolkit's positioned parser only to report a syntax error. */
export function parseLintJson(text: string): { ok: true; value: unknown } | { ok: false; issue: SchemaIssue } {
  try {
    return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch {
    return parseJsonText(text);
  }
}

export function lintText(text: string, options: LintOptions): FileLint {
  const parsed = parseLintJson(text);
  // v1 documents with template tags (`"enum": {{enum___x___values}}`) are not JSON until rendered.
  if (!parsed.ok && parseV1(text).schema === null) {
    const { issue } = parsed;
    return { kind: 'invalid-json', documents: [], findings: [finding(issue, '', '', issue.location ?? { line: 1, column: 1 })] };
  }
  const value = parsed.ok ? parsed.value : undefined;
  const found = parsed.ok ? classify(value) : { kind: 'v1' as ContentKind, documents: [] as string[] };
  if (found.kind === 'v1') {
    const issue = {
      code: 'schema_version_error', category: 'validation' as const, severity: 'error' as const, pointer: '/schema',
      message: 'this is a v1 event type document (draft-04 schema and form definition), not a v2 {json, ui} document',
      hints: ['convert it with `fieldops migrate <file> --out <dir>`, then lint the result'],
    };
    if (!options.explicit) return { kind: 'v1', documents: [], findings: [], skipped: 'a v1 document (convert it with `fieldops migrate`)' };
    const location = parseV1(text).locate('/schema') ?? { line: 1, column: 1 };
    return { kind: 'v1', documents: [], findings: [finding(issue, '', '/schema', { line: location.line, column: location.column })] };
  }
  if (found.kind === 'unrecognised') {
    if (!options.explicit) return { kind: 'unrecognised', documents: [], findings: [], skipped: 'no {json, ui} document or type export in it' };
    found.documents = [''];
  }
  // Parsing with positions costs more than validating: done only for files with findings.
  let locator: ReturnType<typeof createPointerLocator> | undefined;
  const at = (pointer: string) => locate((locator ??= createPointerLocator(text)), pointer);
  const findings: LintFinding[] = [];
  for (const documentPointer of found.documents) {
    const analysis = analyseDocument(getAtPointer(value, documentPointer));
    const issues: Array<Omit<SchemaIssue, 'code'> & { code: string }> = [...analysis.issues];
    if (options.choices) issues.push(...choiceIssues(analysis.choiceReferences, options.choices));
    for (const issue of issues) {
      const pointer = documentPointer + issue.pointer;
      findings.push(finding(issue, documentPointer, pointer, at(pointer)));
    }
  }
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  return { kind: found.kind, documents: found.documents, findings };
}

export function locate(locator: ReturnType<typeof createPointerLocator>, pointer: string): { line: number; column: number } {
  const location = locator(pointer);
  if (!location) return { line: 1, column: 1 };
  // A member's name is where a reader looks for it (`"minimum": 5` rather than `5`).
  return location.exact && location.key ? location.key : { line: location.line, column: location.column };
}

function finding(issue: Pick<SchemaIssue, 'severity' | 'category' | 'message' | 'hints'> & { code: string }, document: string, pointer: string, at: { line: number; column: number }): LintFinding {
  return { document, pointer, line: at.line, column: at.column, severity: issue.severity, code: issue.code, category: issue.category, message: issue.message, hints: issue.hints };
}

/** Choice references checked against the lists the server has (as last mirrored). */
function choiceIssues(sites: ReadonlyArray<{ pointer: string; fields: string[] }>, choices: NonNullable<LintOptions['choices']>) {
  const issues: Array<Omit<SchemaIssue, 'code'> & { code: string }> = [];
  for (const site of sites) {
    for (const field of site.fields) {
      if (choices.active.has(field)) continue;
      const inactive = choices.known.has(field);
      issues.push({
        code: 'unresolvable_reference',
        category: 'reference',
        severity: inactive ? 'warning' : 'error',
        pointer: joinPointer(site.pointer, '$ref'),
        message: inactive
          ? `every choice of the list "${field}" is deactivated on ${choices.source}: the field would offer nothing`
          : `the choice list "${field}" does not exist on ${choices.source}: the field would render with no choices`,
        hints: inactive
          ? ['reactivate choices of the list, or reference another list']
          : ['fix the list name or create the list on the server (run `fieldops sync` if it was added recently; `--no-mirror` skips this check)'],
      });
    }
  }
  return issues;
}
