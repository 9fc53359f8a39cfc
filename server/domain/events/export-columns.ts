import { parseV1 } from '../../../schema/index.js';

/**
 * The detail columns of the events export, from each type's CURRENT schema (never from the
 * events' data, so finding them costs one schema read per type, whatever the number of events):
 * the schema's top-level properties, titled by their `title` (else the key). Keys an event holds
 * that its type's columns do not list go to the one trailing OTHER_DETAILS column, as JSON.
 * Pure functions: the stored schema text in, the columns out; an unreadable schema gives none
 * (every detail of such a type then lands in OTHER_DETAILS, so nothing recorded is lost).
 */

export const OTHER_DETAILS = 'Other Details';

export interface DetailColumn {
  key: string;
  /** The schema's title of the property, when it has a non-empty one. */
  title: string | null;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A v2 type's columns (`{json, ui}`): the fields in form order (`ui.order`'s sections, each one's
 * left then right column), then the properties no section places, in schema order.
 */
export function v2DetailColumns(schemaText: string): DetailColumn[] {
  const document = parseObject(schemaText);
  const properties = isObject(document?.json) ? document.json.properties : undefined;
  if (!isObject(properties)) return [];
  const ui = isObject(document?.ui) ? document.ui : {};
  const sections = isObject(ui.sections) ? ui.sections : {};
  const placed: string[] = [];
  for (const sectionKey of Array.isArray(ui.order) ? ui.order : []) {
    const section = typeof sectionKey === 'string' && Object.hasOwn(sections, sectionKey) ? sections[sectionKey] : undefined;
    if (!isObject(section)) continue;
    for (const side of [section.leftColumn, section.rightColumn]) {
      if (!Array.isArray(side)) continue;
      for (const entry of side) if (isObject(entry) && entry.type !== 'header' && typeof entry.name === 'string') placed.push(entry.name);
    }
  }
  return ordered(properties, placed);
}

/**
 * A v1 type's columns (template text, `{schema, definition}`): the keys in the form
 * `definition`'s order (strings, `{key}` entries, fieldsets' `items`), then the rest of
 * `schema.properties` in schema order. The template tags are set aside by the toolkit's parser.
 */
export function v1DetailColumns(schemaText: string): DetailColumn[] {
  const parsed = parseV1(schemaText);
  const properties = parsed.schema?.properties;
  if (!isObject(properties)) return [];
  const placed: string[] = [];
  const visit = (entries: unknown[], depth: number): void => {
    if (depth > 8) return;
    for (const entry of entries) {
      if (typeof entry === 'string') placed.push(entry);
      else if (isObject(entry)) {
        if (typeof entry.key === 'string') placed.push(entry.key);
        if (Array.isArray(entry.items)) visit(entry.items, depth + 1);
      }
    }
  };
  visit(parsed.definition ?? [], 0);
  return ordered(properties, placed);
}

/** The properties in the placed order first (each once, only real properties), then the others in schema order. */
function ordered(properties: Json, placed: readonly string[]): DetailColumn[] {
  const keys = new Set<string>();
  for (const key of placed) if (Object.hasOwn(properties, key)) keys.add(key);
  for (const key of Object.keys(properties)) keys.add(key);
  return [...keys].map((key) => {
    const title = (properties[key] as { title?: unknown } | null)?.title;
    return { key, title: typeof title === 'string' && title.trim() ? title.trim() : null };
  });
}

function parseObject(text: string): Json | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}
