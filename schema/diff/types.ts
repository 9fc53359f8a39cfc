/**
 * The result of a semantic schema diff: what changed in an event type's `{json, ui}` as a form.
 * Each change has a stable `kind` id (callers may switch on it; new kinds may be added, existing
 * ids keep their meaning) and a `breaking` hint: true when the change can invalidate data already
 * recorded under the old revision, or hide it from view (removals, narrowing, required added,
 * choices removed, type changes, renames, fields taken out of the layout).
 */
import type { ChoiceEntry } from '../pre-render.js';
import { MAX_SCHEMA_DEPTH } from '../schema-depth.js';

export type ChangeKind =
  | 'field.added' | 'field.removed' | 'field.renamed'
  | 'field.type_changed' | 'field.format_changed'
  | 'required.added' | 'required.removed'
  | 'choice.added' | 'choice.removed' | 'choice.display_changed' | 'choice.description_changed'
  | 'choice_list.added' | 'choice_list.removed'
  | 'constraint.narrowed' | 'constraint.widened' | 'constraint.changed'
  | 'title.changed' | 'annotation.changed' | 'schema.changed'
  | 'layout.moved' | 'layout.hidden' | 'layout.shown'
  | 'layout.section_added' | 'layout.section_removed' | 'layout.section_changed' | 'layout.section_moved'
  | 'layout.header_changed' | 'ui.field_added' | 'ui.field_removed' | 'ui.field_changed' | 'ui.changed';

export interface Change {
  kind: ChangeKind;
  /** JSON Pointer into the document: the new revision's, or the old one's for what was removed. */
  path: string;
  /** The field's name path (`animals.tag`); absent for changes of the layout's sections/headers or the root. */
  field?: string;
  /** For `field.renamed`: the pointer of the old field. */
  fromPath?: string;
  before?: unknown;
  after?: unknown;
  breaking: boolean;
  /** Set on heuristic findings (renames): the diff believes, but cannot know. */
  likely?: boolean;
  message: string;
}

export interface SchemaDiff {
  identical: boolean;
  changes: Change[];
}

/**
 * Answers the entries of a choice list by name (`field` of a `choices.json` reference), or
 * null/undefined when it is unknown. Synchronous, so the diff stays a pure function: resolve
 * asynchronous sources first with `resolveChoiceLookup`.
 */
export type ChoiceLookup = (list: string) => readonly ChoiceEntry[] | null | undefined;

export interface DiffOptions {
  /** Resolves `choices.json` references; without it, only the list names are compared. */
  choices?: ChoiceLookup;
}

/** Limits on the input (documents come from users): the diff refuses more than this. */
export const MAX_DIFF_FIELDS = 20_000;
/** Data values (`default`, `enum`, `const`...) nested deeper than this are refused. */
export const MAX_VALUE_DEPTH = 64;

/** Entries of the `ui` (field definitions, sections, headers, `order` and column entries) beyond this are refused. */
export const MAX_UI_ENTRIES = 4 * MAX_DIFF_FIELDS;
/**
 * Raw JSON nesting of a whole document (envelope, schema keywords, values, `ui`), checked
 * iteratively before anything recursive runs: a schema at `MAX_SCHEMA_DEPTH` takes at most two
 * JSON levels per subschema (`properties`/name), plus values up to `MAX_VALUE_DEPTH`.
 */
export const MAX_DOCUMENT_DEPTH = 2 * MAX_SCHEMA_DEPTH + MAX_VALUE_DEPTH + 8;

/** Thrown when a document is beyond the diff's limits (too deep, too many fields). */
export class SchemaDiffLimitError extends RangeError {
  readonly code = 'schema_diff_limit';
  constructor(message: string, readonly pointer: string) {
    super(message);
    this.name = 'SchemaDiffLimitError';
  }
}
