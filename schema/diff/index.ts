/**
 * Semantic diff of two event-type schema documents (`{json, ui}`), compared as forms rather than
 * text. Pure and synchronous: choice lists come from a `ChoiceLookup` the caller passes (build
 * one with `choiceLookupFrom(groupChoices(records))`, or `await resolveChoiceLookup(docs,
 * resolver)` for an asynchronous source). Both documents are normalised first, so what the
 * server stores and what an admin keeps in git compare equal; key order never matters.
 *
 * Work is linear in the size of the documents (plus sorting the changes); documents beyond
 * `MAX_SCHEMA_DEPTH`, `MAX_DOCUMENT_DEPTH`, `MAX_VALUE_DEPTH`, `MAX_DIFF_FIELDS` or
 * `MAX_UI_ENTRIES` throw `SchemaDiffLimitError`. The depths are checked iteratively before
 * anything recursive (normalising, copying) runs, so no input overflows the stack.
 */
import { isJsonObject, joinPointer } from '../json-pointer.js';
import { normaliseDocument } from '../normalise.js';
import { MAX_SCHEMA_DEPTH, tooDeepAt } from '../schema-depth.js';
import { canonicalJson } from './canonical.js';
import { compareFields } from './compare.js';
import { flattenSchema, type DiffField, type FlatSchema } from './fields.js';
import { compareLayout, layoutOf, placementSlot, type LayoutModel } from './layout.js';
import { MAX_DOCUMENT_DEPTH, SchemaDiffLimitError, type Change, type ChangeKind, type DiffOptions, type SchemaDiff } from './types.js';

export { choiceLookupFrom, resolveChoiceLookup, type ChoiceSet, type ChoiceValue } from './choices.js';
// the field model, for rules that look at one revision's fields (the breaking-change lint)
export { flattenSchema, type DiffField, type FlatSchema } from './fields.js';
export { renderDiff, renderJson, renderMarkdown, renderStylish, DIFF_FORMATS, type DiffFormat, type RenderOptions } from './render.js';
export {
  MAX_DIFF_FIELDS, MAX_DOCUMENT_DEPTH, MAX_UI_ENTRIES, MAX_VALUE_DEPTH, SchemaDiffLimitError,
  type Change, type ChangeKind, type ChoiceLookup, type DiffOptions, type SchemaDiff,
} from './types.js';

/** Every change kind, in the order changes at the same path are listed. */
export const CHANGE_KINDS: readonly ChangeKind[] = [
  'field.renamed', 'field.removed', 'field.added', 'field.type_changed', 'field.format_changed',
  'required.added', 'required.removed', 'choice_list.removed', 'choice_list.added', 'choice.removed', 'choice.added',
  'choice.display_changed', 'choice.description_changed', 'constraint.narrowed', 'constraint.widened', 'constraint.changed', 'title.changed',
  'annotation.changed', 'schema.changed', 'layout.hidden', 'layout.shown', 'layout.moved', 'layout.section_removed',
  'layout.section_added', 'layout.section_changed', 'layout.section_moved', 'layout.header_changed',
  'ui.field_removed', 'ui.field_added', 'ui.field_changed', 'ui.changed',
];
const KIND_RANK = new Map(CHANGE_KINDS.map((kind, i) => [kind, i]));

export function diffSchemaDocuments(before: unknown, after: unknown, options: DiffOptions = {}): SchemaDiff {
  checkDepth(before);
  checkDepth(after);
  const old = normaliseDocument(before);
  const now = normaliseDocument(after);
  const oldFlat = flattenSchema(old, options.choices);
  const newFlat = flattenSchema(now, options.choices);
  const oldLayout = layoutOf(old);
  const newLayout = layoutOf(now);
  const { changes, renamedTopLevel } = compareFields(oldFlat, newFlat, slotIn(oldLayout), slotIn(newLayout));
  for (const change of compareRoot(oldFlat, newFlat)) changes.push(change);
  const topLevel = (flat: FlatSchema) => (name: string): boolean => flat.fields.has(`/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  // NOTE: a loop, not push(...list): spreading ~100,000 arguments overflows the stack
  for (const change of compareLayout(oldLayout, newLayout, renamedTopLevel, topLevel(oldFlat), topLevel(newFlat))) changes.push(change);
  sortChanges(changes);
  return { identical: changes.length === 0, changes };
}

/** Top-level fields placed in the layout are at their section slot; others have none (key order is no position). */
function slotIn(layout: LayoutModel) {
  return (field: DiffField): string => (field.parentKey === '' ? placementSlot(layout, field.name) : '');
}

/**
 * Refuses documents nested too deeply, before normalising (which recurses): subschemas beyond
 * `MAX_SCHEMA_DEPTH`, then any JSON (values, `ui`) beyond `MAX_DOCUMENT_DEPTH`. Both walks are
 * iterative, and the second never descends past the limit, so its pointers stay short.
 */
function checkDepth(doc: unknown): void {
  if (!isJsonObject(doc)) return;
  const deep = tooDeepAt(doc.json, '/json');
  if (deep !== undefined) throw new SchemaDiffLimitError(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`, deep);
  const stack: Array<[unknown, string, number]> = [[doc, '', 0]];
  while (stack.length > 0) {
    const [node, pointer, depth] = stack.pop()!;
    if (depth > MAX_DOCUMENT_DEPTH) throw new SchemaDiffLimitError(`the document nests deeper than ${MAX_DOCUMENT_DEPTH} levels`, pointer);
    if (Array.isArray(node)) node.forEach((child, i) => { if (typeof child === 'object' && child !== null) stack.push([child, joinPointer(pointer, i), depth + 1]); });
    else if (isJsonObject(node)) for (const [key, child] of Object.entries(node)) if (typeof child === 'object' && child !== null) stack.push([child, joinPointer(pointer, key), depth + 1]);
  }
}

function compareRoot(old: FlatSchema, now: FlatSchema): Change[] {
  const changes: Change[] = [];
  if (old.rootTitle !== now.rootTitle) {
    changes.push({ kind: 'title.changed', path: '/json/title', before: old.rootTitle, after: now.rootTitle, breaking: false, message: 'title of the schema changed' });
  }
  if (old.rootRest !== now.rootRest) {
    changes.push({ kind: 'schema.changed', path: '/json', breaking: true, message: 'other root keywords of the schema changed (not interpreted by the diff: review them)' });
  }
  return changes;
}

/** Deterministic: by path (code units), then kind, then the values; independent of key order. */
function sortChanges(changes: Change[]): void {
  const keyed = changes.map((change) => ({ change, values: canonicalJson([change.before, change.after]) }));
  keyed.sort((a, b) => cmp(a.change.path, b.change.path) || (KIND_RANK.get(a.change.kind)! - KIND_RANK.get(b.change.kind)!) || cmp(a.values, b.values) || cmp(a.change.field ?? '', b.change.field ?? ''));
  keyed.forEach((k, i) => { changes[i] = k.change; });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
