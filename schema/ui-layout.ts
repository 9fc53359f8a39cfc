/**
 * Checks of the `ui` layout: its top-level keys, `sections` (and their column entries), `order`
 * and `headers`. Dangling names are `ui_reference_error`; wrong types/values are
 * `ui_definition_error`; layout oddities that still render are warnings.
 */
import type { FieldInfo } from './field-kinds.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { isJsonObject, joinPointer, type JsonObject } from './json-pointer.js';

const UI_KEYS = new Set(['fields', 'sections', 'order', 'headers']);
const SECTION_KEYS = new Set(['label', 'columns', 'isActive', 'leftColumn', 'rightColumn', 'conditions']);
const HEADER_SIZES = new Set(['SMALL', 'MEDIUM', 'LARGE']);

const definitionError = (pointer: string, message: string, hint: string, severity: 'error' | 'warning' = 'error'): SchemaIssue =>
  schemaIssue('ui_definition_error', { pointer, message, hints: [hint], severity });
const referenceError = (pointer: string, message: string, hint: string): SchemaIssue =>
  schemaIssue('ui_reference_error', { pointer, message, hints: [hint] });

/** Object-valued `ui` members, or an issue when one has the wrong type. */
export function uiMembers(ui: JsonObject): { issues: SchemaIssue[]; fields: JsonObject; sections: JsonObject; headers: JsonObject } {
  const issues: SchemaIssue[] = [];
  for (const key of Object.keys(ui)) {
    if (!UI_KEYS.has(key)) issues.push(definitionError(joinPointer('/ui', key), `unknown \`ui\` key \`${key}\``, 'the `ui` keys are fields, sections, order and headers', 'warning'));
  }
  const member = (key: string): JsonObject => {
    const value = ui[key];
    if (value === undefined || isJsonObject(value)) return value ?? {};
    issues.push(definitionError(joinPointer('/ui', key), `\`ui.${key}\` must be an object`, 'use `{}` when empty'));
    return {};
  };
  return { issues, fields: member('fields'), sections: member('sections'), headers: member('headers') };
}

export interface LayoutInput {
  ui: JsonObject;
  uiFields: JsonObject;
  sections: JsonObject;
  headers: JsonObject;
  fields: Map<string, FieldInfo>;
}

export function layoutIssues(input: LayoutInput): SchemaIssue[] {
  const { sections, headers } = input;
  const sectionKeys = new Set(Object.keys(sections));
  const issues: SchemaIssue[] = [...orderIssues(input.ui.order, sectionKeys), ...headerIssues(headers, sectionKeys)];
  const placed = new Map<string, string>();
  for (const [key, section] of Object.entries(sections)) {
    const at = joinPointer('/ui/sections', key);
    if (!isJsonObject(section)) {
      issues.push(definitionError(at, `section \`${key}\` must be an object`, 'e.g. `{"label": "", "columns": 1, "isActive": true, "leftColumn": [], "rightColumn": []}`'));
      continue;
    }
    issues.push(...sectionIssues(key, section, at));
    for (const side of ['leftColumn', 'rightColumn'] as const) {
      const entries = section[side];
      if (!Array.isArray(entries)) continue;
      entries.forEach((entry, i) => issues.push(...columnEntryIssues(entry, joinPointer(at, side, i), key, input, placed)));
    }
  }
  for (const [name, definition] of Object.entries(input.uiFields)) {
    if (isJsonObject(definition) && typeof definition.parent === 'string' && sectionKeys.has(definition.parent) && !placed.has(name) && input.fields.has(name)) {
      issues.push(definitionError(joinPointer('/ui/fields', name), `field \`${name}\` is not placed in any section column; forms will not show it`,
        `add \`{"name": "${name}", "type": "field"}\` to a column of section \`${definition.parent}\``, 'warning'));
    }
  }
  return issues;
}

function orderIssues(order: unknown, sectionKeys: Set<string>): SchemaIssue[] {
  if (order === undefined) return [];
  if (!Array.isArray(order)) return [definitionError('/ui/order', '`ui.order` must be an array of section keys', 'e.g. `["section-1"]`')];
  const issues: SchemaIssue[] = [];
  const seen = new Set<unknown>();
  order.forEach((key, i) => {
    const at = joinPointer('/ui/order', i);
    if (typeof key !== 'string' || !sectionKeys.has(key)) {
      issues.push(referenceError(at, `\`ui.order\` names no section (${JSON.stringify(key)})`, 'list only keys of `ui.sections`'));
    } else if (seen.has(key)) {
      issues.push(definitionError(at, `section \`${key}\` is listed twice in \`ui.order\``, 'remove the duplicate', 'warning'));
    }
    seen.add(key);
  });
  for (const key of sectionKeys) {
    if (!seen.has(key)) issues.push(definitionError(joinPointer('/ui/sections', key), `section \`${key}\` is not in \`ui.order\`; forms will not show it`, `add "${key}" to \`ui.order\``, 'warning'));
  }
  return issues;
}

function headerIssues(headers: JsonObject, sectionKeys: Set<string>): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const [key, header] of Object.entries(headers)) {
    const at = joinPointer('/ui/headers', key);
    if (!isJsonObject(header)) {
      issues.push(definitionError(at, `header \`${key}\` must be an object`, 'e.g. `{"label": "Details", "section": "<section>", "size": "MEDIUM"}`'));
      continue;
    }
    if (typeof header.label !== 'string') issues.push(definitionError(joinPointer(at, 'label'), 'a header needs a string `label`', 'set `label`'));
    if (header.size !== undefined && !HEADER_SIZES.has(header.size as string)) issues.push(definitionError(joinPointer(at, 'size'), `unknown header size ${JSON.stringify(header.size)}`, 'use SMALL, MEDIUM or LARGE'));
    if (header.section !== undefined && !(typeof header.section === 'string' && sectionKeys.has(header.section))) {
      issues.push(referenceError(joinPointer(at, 'section'), `header \`${key}\` names no section (${JSON.stringify(header.section)})`, 'use a key of `ui.sections`'));
    }
  }
  return issues;
}

function sectionIssues(key: string, section: JsonObject, at: string): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const typed: Array<[string, (v: unknown) => boolean, string]> = [
    ['label', (v) => typeof v === 'string', 'a string'],
    ['columns', (v) => Number.isInteger(v) && (v as number) >= 1, 'an integer (1 or 2)'],
    ['isActive', (v) => typeof v === 'boolean', 'a boolean'],
    ['leftColumn', Array.isArray, 'an array of `{name, type}` entries'],
    ['rightColumn', Array.isArray, 'an array of `{name, type}` entries'],
  ];
  for (const [name, ok, what] of typed) {
    if (section[name] === undefined) {
      issues.push(definitionError(at, `section \`${key}\` has no \`${name}\``, `set \`${name}\` to ${what}`, 'warning'));
    } else if (!ok(section[name])) {
      issues.push(definitionError(joinPointer(at, name), `\`${name}\` of section \`${key}\` must be ${what}`, `set \`${name}\` to ${what}`));
    }
  }
  if (Number.isInteger(section.columns) && (section.columns as number) > 2) {
    issues.push(definitionError(joinPointer(at, 'columns'), `section \`${key}\` has ${String(section.columns)} columns; forms show at most 2`, 'use 1 or 2', 'warning'));
  }
  if (section.columns === 1 && Array.isArray(section.rightColumn) && section.rightColumn.length > 0) {
    issues.push(definitionError(joinPointer(at, 'rightColumn'), `section \`${key}\` has one column, so its \`rightColumn\` is not shown`, 'set `columns` to 2, or move the entries to `leftColumn`', 'warning'));
  }
  for (const name of Object.keys(section)) {
    if (!SECTION_KEYS.has(name)) issues.push(definitionError(joinPointer(at, name), `\`${name}\` is not a key of a section`, 'remove it', 'warning'));
  }
  return issues;
}

function columnEntryIssues(entry: unknown, at: string, sectionKey: string, input: LayoutInput, placed: Map<string, string>): SchemaIssue[] {
  if (!isJsonObject(entry) || typeof entry.name !== 'string') {
    return [definitionError(at, 'a column entry must be `{"name": <field name>, "type": "field"}`', 'give the entry a string `name`')];
  }
  const name = entry.name;
  if (entry.type === 'header') {
    return Object.prototype.hasOwnProperty.call(input.headers, name) ? []
      : [referenceError(joinPointer(at, 'name'), `column entry names no header (${JSON.stringify(name)})`, 'use a key of `ui.headers`')];
  }
  if (entry.type !== 'field') {
    return [definitionError(joinPointer(at, 'type'), `unknown column entry type ${JSON.stringify(entry.type)}`, 'use "field" (or "header")')];
  }
  if (!input.fields.has(name)) {
    return [referenceError(joinPointer(at, 'name'), `column entry names no field (${JSON.stringify(name)})`, 'use a key of `json.properties`')];
  }
  const issues: SchemaIssue[] = [];
  const previous = placed.get(name);
  if (previous !== undefined) {
    issues.push(definitionError(at, `field \`${name}\` is placed twice (also in section \`${previous}\`)`, 'keep one placement', 'warning'));
  }
  placed.set(name, sectionKey);
  const definition = input.uiFields[name];
  if (!isJsonObject(definition)) {
    issues.push(definitionError(at, `field \`${name}\` is placed but has no \`ui.fields\` entry`, `add \`ui.fields.${name}\``, 'warning'));
  } else if (typeof definition.parent === 'string' && definition.parent !== sectionKey) {
    issues.push(definitionError(at, `field \`${name}\` is placed in section \`${sectionKey}\` but its \`parent\` is \`${definition.parent}\``, 'make `parent` and the placement agree', 'warning'));
  }
  return issues;
}
