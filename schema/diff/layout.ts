/**
 * Layout changes (`ui`): where each top-level field and header is placed (section, column, row),
 * sections added, removed, reordered or changed (label, columns, isActive, other keys), headers,
 * each field's UI definition (added, removed, changed) and any other `ui` key. Every user object
 * is read through own keys only (`toString` is a name, never `Object.prototype`'s). A field taken out of every column is `layout.hidden` (breaking: forms stop showing
 * what was recorded in it). Reordering is reported for the fewest fields that explain it: the
 * fields outside a longest increasing subsequence of the new positions (O(n log n)).
 */
import { isJsonObject, joinPointer, type JsonObject } from '../json-pointer.js';
import { canonicalJson, canonicalRest } from './canonical.js';
import { MAX_UI_ENTRIES, SchemaDiffLimitError, type Change } from './types.js';

export interface Placement {
  section: string;
  column: 'left' | 'right';
  row: number;
  pointer: string;
}

export interface LayoutModel {
  sections: Map<string, JsonObject>;
  /** `ui.order`, then the sections it does not list in code-unit order (key order is no order). */
  order: string[];
  /** Top-level fields placed in a column. */
  placements: Map<string, Placement>;
  /** Headers placed in a column. */
  headerPlacements: Map<string, Placement>;
  uiFields: JsonObject;
  headers: JsonObject;
  /** The `ui` keys the diff does not interpret, with their values. */
  other: Map<string, unknown>;
}

const UI_KEYS = new Set(['fields', 'headers', 'order', 'sections']);
const SECTION_KEYS = ['label', 'columns', 'isActive'];
const SECTION_SKIP = new Set([...SECTION_KEYS, 'leftColumn', 'rightColumn']);
const member = (ui: JsonObject, key: string): JsonObject => (Object.hasOwn(ui, key) && isJsonObject(ui[key]) ? ui[key] : {});
const own = (obj: JsonObject, key: string): unknown => (Object.hasOwn(obj, key) ? obj[key] : undefined);
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The layout of a (normalised) document; more than `MAX_UI_ENTRIES` entries throw `SchemaDiffLimitError`. */
export function layoutOf(doc: unknown): LayoutModel {
  const ui = isJsonObject(doc) && isJsonObject(doc.ui) ? doc.ui : {};
  let counted = 0;
  const count = (n: number): void => {
    counted += n;
    if (counted > MAX_UI_ENTRIES) throw new SchemaDiffLimitError(`the UI has more than ${MAX_UI_ENTRIES} entries`, '/ui');
  };
  const uiFields = member(ui, 'fields');
  const headers = member(ui, 'headers');
  const sectionsObject = member(ui, 'sections');
  const rawOrder = Array.isArray(ui.order) ? ui.order : [];
  count(Object.keys(uiFields).length + Object.keys(headers).length + Object.keys(sectionsObject).length + rawOrder.length);
  const sections = new Map(Object.entries(sectionsObject).filter((e): e is [string, JsonObject] => isJsonObject(e[1])));
  const listed = new Set(rawOrder.filter((k): k is string => typeof k === 'string' && sections.has(k)));
  const order = [...listed, ...[...sections.keys()].filter((k) => !listed.has(k)).sort(compareText)];
  const placements = new Map<string, Placement>();
  const headerPlacements = new Map<string, Placement>();
  for (const key of order) {
    const section = sections.get(key)!;
    for (const column of ['left', 'right'] as const) {
      const entries = own(section, `${column}Column`);
      if (!Array.isArray(entries)) continue;
      count(entries.length);
      entries.forEach((entry, row) => {
        if (!isJsonObject(entry) || typeof entry.name !== 'string') return;
        const into = entry.type === 'field' ? placements : entry.type === 'header' ? headerPlacements : undefined;
        if (!into || into.has(entry.name)) return;
        into.set(entry.name, { section: key, column, row, pointer: joinPointer('/ui/sections', key, `${column}Column`, row) });
      });
    }
  }
  const other = new Map(Object.entries(ui).filter(([k]) => !UI_KEYS.has(k)));
  return { sections, order, placements, headerPlacements, uiFields, headers, other };
}

/** The slot of a top-level field for the rename heuristic ('' when it is not placed). */
export function placementSlot(layout: LayoutModel, name: string): string {
  const p = layout.placements.get(name);
  return p ? `ui:${p.section}/${p.column}/${p.row}` : '';
}

const where = (p: Placement): Record<string, unknown> => ({ section: p.section, column: p.column, row: p.row });

/** A placed column entry present in both revisions: a field (by its new name) or a header. */
interface Kept {
  old: Placement;
  now: Placement;
  name: string;
  header: boolean;
}

function moved(entry: Kept, how: string): Change {
  const { old, now, name } = entry;
  if (entry.header) return { kind: 'layout.header_changed', path: now.pointer, before: where(old), after: where(now), breaking: false, message: `header \`${name}\` moved ${how}` };
  return { kind: 'layout.moved', path: now.pointer, field: name, before: where(old), after: where(now), breaking: false, message: `field \`${name}\` moved ${how}` };
}

/**
 * `renamed` maps old top-level names to new ones; `existsBefore`/`existsAfter(name)` tell whether
 * a revision has a top-level field of that name (a removed or added field's placement and UI
 * definition are covered by `field.removed`/`field.added`).
 */
export function compareLayout(before: LayoutModel, after: LayoutModel, renamed: ReadonlyMap<string, string>, existsBefore: (name: string) => boolean, existsAfter: (name: string) => boolean): Change[] {
  const changes: Change[] = [...compareSections(before, after), ...compareHeaders(before, after), ...compareOther(before, after)];
  const renamedBack = new Map([...renamed].map(([a, b]) => [b, a]));
  const common: Kept[] = [];
  for (const [oldName, old] of before.placements) {
    const name = renamed.get(oldName) ?? oldName;
    if (!existsAfter(name)) continue;
    const now = after.placements.get(name);
    if (!now) {
      changes.push({ kind: 'layout.hidden', path: old.pointer, field: name, before: where(old), breaking: true, message: `field \`${name}\` is no longer placed in any section: forms stop showing it` });
    } else {
      common.push({ old, now, name, header: false });
    }
  }
  for (const [name, now] of after.placements) {
    const oldName = renamedBack.get(name) ?? name;
    if (existsBefore(oldName) && !before.placements.has(oldName)) {
      changes.push({ kind: 'layout.shown', path: now.pointer, field: name, after: where(now), breaking: false, message: `field \`${name}\` is now placed in section \`${now.section}\`` });
    }
  }
  for (const [name, old] of before.headerPlacements) {
    const now = after.headerPlacements.get(name);
    if (now) common.push({ old, now, name, header: true });
    else changes.push({ kind: 'layout.header_changed', path: old.pointer, before: where(old), breaking: false, message: `header \`${name}\` is no longer placed in any section` });
  }
  for (const [name, now] of after.headerPlacements) {
    if (!before.headerPlacements.has(name)) changes.push({ kind: 'layout.header_changed', path: now.pointer, after: where(now), breaking: false, message: `header \`${name}\` is now placed in section \`${now.section}\`` });
  }
  // entries that stayed in their column moved only if their order among the others changed
  // (reordering sections is reported once, as `layout.section_moved`)
  const stayed = new Map<string, Kept[]>();
  for (const entry of common) {
    const { old, now } = entry;
    if (old.section === now.section && old.column === now.column) {
      const key = `${old.section}\u0000${old.column}`;
      const group = stayed.get(key);
      if (group) group.push(entry);
      else stayed.set(key, [entry]);
    } else {
      changes.push(moved(entry, `from section \`${old.section}\` (${old.column}) to \`${now.section}\` (${now.column})`));
    }
  }
  for (const group of stayed.values()) {
    group.sort((x, y) => x.old.row - y.old.row);
    const inOrder = longestIncreasing(group.map((entry) => entry.now.row));
    group.forEach((entry, i) => {
      if (!inOrder.has(i)) changes.push(moved(entry, `within section \`${entry.now.section}\` (${entry.now.column} column, row ${entry.old.row + 1} → ${entry.now.row + 1})`));
    });
  }
  for (const change of compareUiFields(before, after, renamed, renamedBack, existsBefore, existsAfter)) changes.push(change);
  return changes;
}

/** Each field's UI definition (`ui.fields`), matched through renames; `parent` is covered by the placement. */
function compareUiFields(before: LayoutModel, after: LayoutModel, renamed: ReadonlyMap<string, string>, renamedBack: ReadonlyMap<string, string>, existsBefore: (name: string) => boolean, existsAfter: (name: string) => boolean): Change[] {
  const changes: Change[] = [];
  const skip = (k: string): boolean => k === 'parent';
  const text = (value: unknown): string => (isJsonObject(value) ? canonicalRest(value, skip, '/ui/fields') : canonicalJson(value, '/ui/fields'));
  for (const oldName of Object.keys(before.uiFields)) {
    const name = renamed.get(oldName) ?? oldName;
    const old = before.uiFields[oldName];
    // a renamed field whose definition stayed under the old name keeps it there
    const key = Object.hasOwn(after.uiFields, name) ? name : Object.hasOwn(after.uiFields, oldName) ? oldName : undefined;
    if (key === undefined) {
      if (existsBefore(oldName) && !existsAfter(name)) continue;
      changes.push({ kind: 'ui.field_removed', path: joinPointer('/ui/fields', oldName), field: name, before: old, breaking: false, message: `UI definition of \`${name}\` removed` });
      continue;
    }
    const path = joinPointer('/ui/fields', key);
    const now = after.uiFields[key];
    if (text(old) !== text(now)) changes.push({ kind: 'ui.field_changed', path, field: name, before: old, after: now, breaking: false, message: `UI definition of \`${name}\` changed` });
  }
  for (const name of Object.keys(after.uiFields)) {
    const oldName = renamedBack.get(name) ?? name;
    if (Object.hasOwn(before.uiFields, oldName) || (!existsBefore(oldName) && existsAfter(name))) continue;
    changes.push({ kind: 'ui.field_added', path: joinPointer('/ui/fields', name), field: name, after: after.uiFields[name], breaking: false, message: `UI definition of \`${name}\` added` });
  }
  return changes;
}

function compareSections(before: LayoutModel, after: LayoutModel): Change[] {
  const changes: Change[] = [];
  for (const [key, old] of before.sections) {
    const at = joinPointer('/ui/sections', key);
    const now = after.sections.get(key);
    if (!now) {
      changes.push({ kind: 'layout.section_removed', path: at, before: own(old, 'label'), breaking: false, message: `section \`${key}\` removed` });
      continue;
    }
    for (const keyword of SECTION_KEYS) {
      const [was, is] = [own(old, keyword), own(now, keyword)];
      if (canonicalJson(was, at) === canonicalJson(is, at)) continue;
      const hides = keyword === 'isActive' && is === false;
      changes.push({ kind: 'layout.section_changed', path: joinPointer(at, keyword), before: was, after: is, breaking: hides, message: `\`${keyword}\` of section \`${key}\` changed${hides ? ': forms stop showing its fields' : ''}` });
    }
    if (canonicalRest(old, (k) => SECTION_SKIP.has(k), at) !== canonicalRest(now, (k) => SECTION_SKIP.has(k), at)) {
      changes.push({ kind: 'layout.section_changed', path: at, breaking: false, message: `other keys of section \`${key}\` changed (not interpreted by the diff: review them)` });
    }
  }
  for (const [key, now] of after.sections) {
    if (!before.sections.has(key)) changes.push({ kind: 'layout.section_added', path: joinPointer('/ui/sections', key), after: own(now, 'label'), breaking: false, message: `section \`${key}\` added` });
  }
  const common = before.order.filter((k) => after.sections.has(k));
  const beforeIndex = new Map(before.order.map((k, i) => [k, i]));
  const afterIndex = new Map(after.order.map((k, i) => [k, i]));
  const inOrder = longestIncreasing(common.map((k) => afterIndex.get(k)!));
  common.forEach((key, i) => {
    if (inOrder.has(i)) return;
    changes.push({ kind: 'layout.section_moved', path: '/ui/order', before: beforeIndex.get(key), after: afterIndex.get(key), breaking: false, message: `section \`${key}\` moved in \`ui.order\`` });
  });
  return changes;
}

function compareHeaders(before: LayoutModel, after: LayoutModel): Change[] {
  const changes: Change[] = [];
  const keys = new Set([...Object.keys(before.headers), ...Object.keys(after.headers)]);
  for (const key of keys) {
    const at = joinPointer('/ui/headers', key);
    const old = own(before.headers, key);
    const now = own(after.headers, key);
    if (canonicalJson(old, at) === canonicalJson(now, at)) continue;
    changes.push({ kind: 'layout.header_changed', path: at, before: old, after: now, breaking: false, message: `header \`${key}\` ${old === undefined ? 'added' : now === undefined ? 'removed' : 'changed'}` });
  }
  return changes;
}

/** `ui` keys other than fields, headers, order and sections: compared as JSON. */
function compareOther(before: LayoutModel, after: LayoutModel): Change[] {
  const changes: Change[] = [];
  for (const key of new Set([...before.other.keys(), ...after.other.keys()])) {
    const at = joinPointer('/ui', key);
    const [old, now] = [before.other.get(key), after.other.get(key)];
    if (canonicalJson(old, at) !== canonicalJson(now, at)) changes.push({ kind: 'ui.changed', path: at, before: old, after: now, breaking: false, message: `\`ui.${key}\` ${old === undefined ? 'added' : now === undefined ? 'removed' : 'changed'}` });
  }
  return changes;
}

/** Indexes of one longest strictly increasing subsequence of `values` (patience sorting). */
export function longestIncreasing(values: readonly number[]): Set<number> {
  const tails: number[] = [];
  const previous = new Array<number>(values.length).fill(-1);
  for (let i = 0; i < values.length; i++) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (values[tails[mid]!]! < values[i]!) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[i] = tails[low - 1]!;
    tails[low] = i;
  }
  const kept = new Set<number>();
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) kept.add(i);
  return kept;
}
