/**
 * v1 form `definition` (angular-schema-form) → v2 `ui` sections, fields and order.
 *
 * - Entries are a key string, `{key, ...}` objects, or `fieldset`s `{type: "fieldset", title,
 *   htmlClass, items: [...]}`.
 * - Half-width entries (`htmlClass` `col-*-6`) fill a two-column section left, right, left, ...;
 *   full-width entries go to the left column (in a two-column section that approximates the
 *   v1 layout, with one warning per document).
 * - A titled fieldset with no items is a heading: it starts a section labelled with its title.
 *   Half-width fieldsets that follow become its left and right columns; a full-width fieldset
 *   starts its own section. A titled half-width fieldset contributes a header entry
 *   (`ui.headers`) at the top of its column.
 * - Top-level entries after fieldsets start a new, unlabelled section.
 * - Without a definition every property is placed, in schema order, in one section.
 * - Properties missing from the definition get a `ui.fields` entry but no place, so forms hide
 *   them as v1 did (the validator then warns about each).
 * Sections are keyed `section-1`, `section-2`, ...; headers `header-1`, ...
 */
import { schemaIssue, type SchemaIssue } from '../issues.js';
import { isJsonObject, joinPointer, setKey, type JsonObject } from '../json-pointer.js';
import type { FieldPlan } from './convert-fields.js';

interface Section {
  key: string;
  label: string;
  left: Array<{ name: string; type: 'field' | 'header' }>;
  right: Array<{ name: string; type: 'field' | 'header' }>;
  halves: number;
  fieldsetSides: number;
  heading: boolean;
  mode: 'plain' | 'fieldsets';
}

const HALF = /\bcol-(?:(?:xs|sm|md|lg|xl)-)?6\b/;
const IGNORED_TYPES = new Set(['submit', 'actions', 'button', 'help']);

export function convertLayout(definition: unknown[] | null, definitionPointer: string, plans: ReadonlyMap<string, FieldPlan>, warn: (issue: SchemaIssue) => void): JsonObject {
  const sections: Section[] = [];
  const headers: JsonObject = {};
  const placed = new Map<string, string>();
  let current: Section | undefined;
  let approximated = false;
  const note = (pointer: string, message: string, hint: string): void =>
    warn(schemaIssue('migration_warning', { severity: 'warning', pointer, message, hints: [hint] }));
  const open = (label: string, mode: Section['mode'], heading = false): Section => {
    current = { key: `section-${sections.length + 1}`, label, left: [], right: [], halves: 0, fieldsetSides: 0, heading, mode };
    sections.push(current);
    return current;
  };
  const place = (section: Section, name: string, half: boolean, pointer: string, column?: 'left' | 'right'): void => {
    if (!plans.has(name)) {
      note(pointer, `the definition names \`${name}\`, which is not a property of the schema; it is skipped`, 'remove the entry, or add the property');
      return;
    }
    if (placed.has(name)) {
      note(pointer, `\`${name}\` appears twice in the definition; only the first place is kept`, 'remove the duplicate entry');
      return;
    }
    placed.set(name, section.key);
    const side = column ?? (half ? (section.halves++ % 2 === 0 ? 'left' : 'right') : 'left');
    // a full-width entry ends a grid row: the next half-width entry starts on the left again
    if (!column && !half && section.halves % 2 === 1) section.halves++;
    if (!column && !half && section.halves > 0 && !approximated) {
      approximated = true;
      note(pointer, 'full-width and half-width entries are mixed in one section; the v2 layout approximates it', 'check the section columns');
    }
    section[side].push({ name, type: 'field' });
  };
  const placeEntry = (section: Section, item: unknown, at: string, column?: 'left' | 'right'): void => {
    if (typeof item === 'string') return place(section, item, false, at, column);
    if (!isJsonObject(item)) return note(at, 'a definition entry is neither a key nor an object; it is skipped', 'use "<key>" or {"key": ...}');
    if (Array.isArray(item.items) && item.key === undefined) {
      if (typeof item.title === 'string' && item.title !== '') addHeader(section, item.title, column ?? 'left');
      item.items.forEach((inner, i) => placeEntry(section, inner, joinPointer(at, 'items', i), column));
      return;
    }
    if (typeof item.key === 'string') return place(section, item.key, HALF.test(String(item.htmlClass ?? '')), at, column);
    if (!IGNORED_TYPES.has(String(item.type))) note(at, 'a definition entry without `key` is skipped', 'give it a `key`');
  };
  const addHeader = (section: Section, label: string, side: 'left' | 'right'): void => {
    const key = `header-${Object.keys(headers).length + 1}`;
    headers[key] = { label, section: section.key, size: 'MEDIUM' };
    section[side].push({ name: key, type: 'header' });
  };

  if (definition === null || definition.length === 0) {
    const section = open('', 'plain');
    for (const name of plans.keys()) place(section, name, false, definitionPointer);
  } else {
    definition.forEach((entry, i) => {
      const at = joinPointer(definitionPointer, i);
      if (isJsonObject(entry) && Array.isArray(entry.items) && entry.key === undefined) {
        const title = typeof entry.title === 'string' ? entry.title : '';
        if (entry.items.length === 0) {
          if (title !== '') open(title, 'fieldsets', true);
          return;
        }
        const half = HALF.test(String(entry.htmlClass ?? ''));
        let section = current;
        if (!half || !section || section.mode !== 'fieldsets' || section.fieldsetSides >= 2 || (!section.heading && section.fieldsetSides === 0)) {
          section = open(half ? '' : title, 'fieldsets');
        }
        const side = half ? (section.fieldsetSides++ === 0 ? 'left' : 'right') : undefined;
        if (half && title !== '') addHeader(section, title, side ?? 'left');
        if (half) section.halves = 2;
        entry.items.forEach((inner, n) => placeEntry(section as Section, inner, joinPointer(at, 'items', n), side));
        return;
      }
      const section = current && current.mode === 'plain' ? current : open('', 'plain');
      placeEntry(section, entry, at);
    });
  }
  return buildUi(sections, headers, plans, placed, note);
}

function buildUi(sections: Section[], headers: JsonObject, plans: ReadonlyMap<string, FieldPlan>, placed: Map<string, string>,
  note: (pointer: string, message: string, hint: string) => void): JsonObject {
  const fallback = sections[0]?.key ?? 'section-1';
  if (sections.length === 0) sections.push({ key: fallback, label: '', left: [], right: [], halves: 0, fieldsetSides: 0, heading: false, mode: 'plain' });
  const fields: JsonObject = {};
  for (const [name, fieldPlan] of plans) {
    const definition = uiField(fieldPlan, placed.get(name) ?? fallback);
    if (definition) setKey(fields, name, definition);
    else note(joinPointer('/schema/properties', name), `\`${name}\` has no v2 form control (it is neither text, number, choice, date nor collection); it gets no \`ui.fields\` entry`, 'edit the v2 document to give it a suitable field kind');
  }
  const sectionMap: JsonObject = {};
  for (const s of sections) {
    sectionMap[s.key] = { columns: s.right.length > 0 || s.halves > 0 ? 2 : 1, isActive: true, label: s.label, leftColumn: s.left, rightColumn: s.right };
  }
  return { fields, headers, order: sections.map((s) => s.key), sections: sectionMap };
}

const CHOICES_BLOCK = (lists: string[]): JsonObject => ({
  eventTypeCategories: [], existingChoiceList: lists, featureCategories: [], myDataType: '', subjectGroups: [], subjectSubtypes: [], type: 'EXISTING_CHOICE_LIST',
});

/** The `ui.fields` entry of a converted field (NUMBER with inputType NUMBER, as the specification gives it). */
function uiField(plan: FieldPlan, parent: string): JsonObject | undefined {
  switch (plan.kind) {
    case 'text': return { inputType: 'SHORT_TEXT', parent, placeholder: '', type: 'TEXT' };
    case 'long_text': return { inputType: 'LONG_TEXT', parent, placeholder: '', type: 'TEXT' };
    case 'numeric': return { inputType: 'NUMBER', parent, placeholder: '', type: 'NUMBER' };
    case 'choice':
    case 'multi_choice':
      return { choices: CHOICES_BLOCK(plan.choiceFields), inputType: plan.inputType ?? 'DROPDOWN', parent, placeholder: '', type: 'CHOICE_LIST' };
    case 'date_time':
    case 'date':
      return { inputType: plan.inputType ?? 'DATE_TIME', parent, type: 'DATE_TIME' };
    case 'collection': return { leftColumn: plan.children, parent, rightColumn: [], type: 'COLLECTION' };
    default: return undefined;
  }
}
