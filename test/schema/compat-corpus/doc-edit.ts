/** Small edits of a document the mutations share: fields, the layout, choices (inline or through a derived list). */
import { parseChoiceReference } from '../../../schema/choice-reference.js';
import type { ChoiceEntry } from '../../../schema/pre-render.js';
import type { Doc } from './corpus.js';

type Json = any;
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export const props = (doc: Doc): Record<string, Json> => (doc.json.properties ??= {});

/** Deletes a top-level field with its `required` entry and its layout definitions and placements. */
export function deleteField(doc: Doc, name: string): void {
  delete props(doc)[name];
  if (Array.isArray(doc.json.required)) doc.json.required = doc.json.required.filter((r: string) => r !== name);
  const ui = doc.ui ?? {};
  if (ui.fields && typeof ui.fields === 'object') delete ui.fields[name];
  for (const section of Object.values<Json>(ui.sections ?? {})) {
    for (const column of ['leftColumn', 'rightColumn']) {
      if (Array.isArray(section?.[column])) section[column] = section[column].filter((e: Json) => e?.name !== name);
    }
  }
  if (Array.isArray(ui.order)) ui.order = ui.order.filter((o: unknown) => o !== name);
}

/** The node holding a field's choices: the field, or its items for a multi-select. */
export function choiceNode(field: Json): Json {
  return field?.type === 'array' && field.items && typeof field.items === 'object' ? field.items : field;
}

/**
 * Removes `value` from a choice node: from `enum`, from `anyOf`/`oneOf` entries, or by pointing a
 * choice-list reference at a derived list without it (added to `lists`). False when it cannot
 * (a lone `const`, or nothing would be left).
 */
export function removeChoice(node: Json, value: unknown, lists: Map<string, ChoiceEntry[]>): boolean {
  if (!node || typeof node !== 'object') return false;
  let done = false;
  if (Array.isArray(node.enum)) {
    const left = node.enum.filter((v: unknown) => !same(v, value));
    if (left.length === 0) return false;
    done = left.length !== node.enum.length;
    node.enum = left;
  }
  for (const keyword of ['anyOf', 'oneOf']) {
    if (!Array.isArray(node[keyword])) continue;
    const out: Json[] = [];
    for (const entry of node[keyword]) {
      if (entry && Object.hasOwn(entry, 'const') && same(entry.const, value)) { done = true; continue; }
      if (entry && Array.isArray(entry.enum) && entry.enum.some((v: unknown) => same(v, value))) {
        done = true;
        const left = entry.enum.filter((v: unknown) => !same(v, value));
        if (left.length > 0) out.push({ ...entry, enum: left });
        continue;
      }
      const reference = entry && typeof entry.$ref === 'string' ? parseChoiceReference(entry.$ref) : null;
      const list = reference?.fields.length === 1 ? reference.fields[0]! : undefined;
      const entries = list === undefined ? undefined : lists.get(list);
      if (list !== undefined && entries?.some((e) => e.value === value)) {
        const derived = `${list}_without_${String(value).replace(/[^a-z0-9_]/gi, '_')}`;
        lists.set(derived, entries.filter((e) => e.value !== value));
        out.push({ ...entry, $ref: entry.$ref.replace(`field=${list}`, `field=${derived}`) });
        done = true;
        continue;
      }
      out.push(entry);
    }
    if (out.length === 0) return false;
    node[keyword] = out;
  }
  return done;
}

/** Adds a value to an inline choice node (`enum`, or `anyOf`/`oneOf` of `const` entries); false when it has none. */
export function addChoice(node: Json, value: string): boolean {
  if (Array.isArray(node?.enum)) { node.enum.push(value); return true; }
  for (const keyword of ['anyOf', 'oneOf']) {
    if (Array.isArray(node?.[keyword]) && node[keyword].every((e: Json) => e && Object.hasOwn(e, 'const'))) {
      node[keyword].push({ const: value, title: 'Added choice' });
      return true;
    }
  }
  return false;
}

/** Moves the first placed field of the first section with one to the end of its other column. */
export function moveInLayout(doc: Doc): boolean {
  for (const section of Object.values<Json>(doc.ui?.sections ?? {})) {
    if (!Array.isArray(section?.leftColumn) || section.leftColumn.length === 0) continue;
    const [entry] = section.leftColumn.splice(0, 1);
    if (Array.isArray(section.rightColumn)) section.rightColumn.push(entry);
    else section.leftColumn.push(entry);
    return true;
  }
  return false;
}
