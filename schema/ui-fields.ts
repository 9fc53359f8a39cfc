/**
 * Checks of `ui.fields`: each entry names a field of `json`, has a known UI `type` with the keys
 * that type takes, and sits in an existing section (`parent`).
 *
 * UI types: the specification's TEXT, NUMBER, CHOICE_LIST, ATTACHMENT, COLLECTION, plus what
 * real EarthRanger documents use: NUMERIC (the web builder's numeric type, no `inputType`),
 * DATE_TIME and LOCATION; CHOICE_LIST also takes the builder's `LIST` input and `MY_DATA` choices.
 */
import type { FieldInfo, FieldKind } from './field-kinds.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { isJsonObject, joinPointer, type JsonObject } from './json-pointer.js';

interface UiTypeRule {
  inputTypes?: readonly string[];
  keys: readonly string[];
  kinds?: readonly FieldKind[];
}

const CHOICE_KINDS: readonly FieldKind[] = ['single_choice', 'multi_choice', 'inline_choice'];
export const UI_FIELD_TYPES: Readonly<Record<string, UiTypeRule>> = {
  TEXT: { inputTypes: ['SHORT_TEXT', 'LONG_TEXT'], keys: ['inputType'], kinds: ['text'] },
  NUMBER: { inputTypes: ['NUMBER'], keys: ['inputType'], kinds: ['numeric'] },
  NUMERIC: { inputTypes: ['NUMBER'], keys: ['inputType'], kinds: ['numeric'] },
  CHOICE_LIST: { inputTypes: ['DROPDOWN', 'RADIO', 'CHECKBOX', 'LIST'], keys: ['inputType', 'choices'], kinds: CHOICE_KINDS },
  ATTACHMENT: { keys: ['allowableFileTypes'], kinds: ['attachment'] },
  COLLECTION: { keys: ['buttonText', 'columns', 'itemIdentifier', 'itemName', 'leftColumn', 'rightColumn'], kinds: ['collection'] },
  DATE_TIME: { inputTypes: ['DATE_TIME', 'DATE', 'TIME'], keys: ['inputType'], kinds: ['date', 'time', 'date_time'] },
  LOCATION: { keys: [], kinds: ['point', 'polygon', 'location'] },
};
const COMMON_KEYS = new Set(['type', 'parent', 'placeholder', 'conditionalDependents', 'description']);
const FILE_TYPES = new Set(['image', 'document', 'video', 'audio']);
const CHOICE_SOURCES = new Set(['EXISTING_CHOICE_LIST', 'MY_DATA']);
const CHOICE_ARRAYS = ['existingChoiceList', 'eventTypeCategories', 'featureCategories', 'subjectGroups', 'subjectSubtypes'];
const MY_DATA_TYPES = new Set(['', 'SUBJECTS_FROM_SUBJECT_GROUP', 'SUBJECTS_FROM_SUBJECT_SUBTYPE', 'FEATURES_FROM_FEATURE_GROUP', 'EVENT_TYPES_FROM_EVENT_CATEGORY']);

export interface UiContext {
  /** Top-level fields of `json`. */
  fields: Map<string, FieldInfo>;
  sectionKeys: Set<string>;
}

const definitionError = (pointer: string, message: string, hint: string, severity: 'error' | 'warning' = 'error'): SchemaIssue =>
  schemaIssue('ui_definition_error', { pointer, message, hints: [hint], severity });

/** Every field of the document, collections' item fields included, by name. */
function fieldByName(fields: Map<string, FieldInfo>, name: string): FieldInfo | undefined {
  const top = fields.get(name);
  if (top) return top;
  for (const field of fields.values()) {
    const child = fieldByName(field.children, name);
    if (child) return child;
  }
  return undefined;
}

export function uiFieldIssues(uiFields: JsonObject, context: UiContext): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const [name, definition] of Object.entries(uiFields)) {
    const at = joinPointer('/ui/fields', name);
    const field = fieldByName(context.fields, name);
    if (!field) {
      issues.push(schemaIssue('ui_reference_error', {
        pointer: at, message: `UI field \`${name}\` has no \`json.properties\` entry`,
        hints: [`add \`${name}\` to \`json.properties\`, or remove it from \`ui.fields\``],
      }));
    }
    if (!isJsonObject(definition)) {
      issues.push(definitionError(at, `UI field \`${name}\` must be an object`, 'e.g. `{"type": "TEXT", "inputType": "SHORT_TEXT", "parent": "<section>"}`'));
      continue;
    }
    issues.push(...parentIssues(name, definition, at, context));
    issues.push(...typeIssues(name, definition, at, field));
  }
  // A document with no UI at all may be API-only; one with some UI should describe every field.
  if (Object.keys(uiFields).length > 0) {
    for (const field of context.fields.values()) {
      if (Object.prototype.hasOwnProperty.call(uiFields, field.name)) continue;
      issues.push(definitionError(field.pointer, `field \`${field.name}\` has no \`ui.fields\` entry; forms will not show it`,
        `add \`ui.fields.${field.name}\` with a UI type and a \`parent\` section`, 'warning'));
    }
  }
  return issues;
}

function parentIssues(name: string, definition: JsonObject, at: string, context: UiContext): SchemaIssue[] {
  const parent = definition.parent;
  if (parent === undefined) {
    // collection item fields are laid out by their collection, not in sections
    if (!context.fields.has(name)) return [];
    return [definitionError(at, `UI field \`${name}\` has no \`parent\` section`, 'set `parent` to a key of `ui.sections`', 'warning')];
  }
  if (typeof parent !== 'string' || !context.sectionKeys.has(parent)) {
    return [schemaIssue('ui_reference_error', {
      pointer: joinPointer(at, 'parent'),
      message: `\`parent\` of UI field \`${name}\` names no section (${JSON.stringify(parent)})`,
      hints: [`use one of the keys of \`ui.sections\`${context.sectionKeys.size ? `: ${[...context.sectionKeys].join(', ')}` : ' (there are none)'}`],
    })];
  }
  return [];
}

function typeIssues(name: string, definition: JsonObject, at: string, field: FieldInfo | undefined): SchemaIssue[] {
  const type = definition.type;
  const rule = typeof type === 'string' && Object.hasOwn(UI_FIELD_TYPES, type) ? UI_FIELD_TYPES[type] : undefined;
  if (!rule) {
    return [definitionError(joinPointer(at, 'type'), `unknown UI type ${JSON.stringify(type)} for field \`${name}\``,
      `use one of: ${Object.keys(UI_FIELD_TYPES).join(', ')}`)];
  }
  const issues: SchemaIssue[] = [];
  const input = definition.inputType;
  if (input !== undefined && !(rule.inputTypes ?? []).includes(input as string)) {
    issues.push(definitionError(joinPointer(at, 'inputType'), `\`inputType\` ${JSON.stringify(input)} is not valid for ${String(type)}`,
      rule.inputTypes ? `use one of: ${rule.inputTypes.join(', ')}` : `${String(type)} takes no \`inputType\``));
  }
  if (type === 'TEXT' && input === undefined) {
    issues.push(definitionError(at, `TEXT field \`${name}\` has no \`inputType\``, 'set `inputType` to SHORT_TEXT or LONG_TEXT', 'warning'));
  }
  if (definition.placeholder !== undefined && typeof definition.placeholder !== 'string') {
    issues.push(definitionError(joinPointer(at, 'placeholder'), '`placeholder` must be a string', 'use a string, or remove it'));
  }
  for (const key of Object.keys(definition)) {
    if (!COMMON_KEYS.has(key) && !rule.keys.includes(key)) {
      issues.push(definitionError(joinPointer(at, key), `\`${key}\` is not a key of a ${String(type)} UI field`, 'remove it', 'warning'));
    }
  }
  if (field && rule.kinds && field.kind !== 'unknown' && field.kind !== 'boolean' && !rule.kinds.includes(field.kind)) {
    issues.push(definitionError(joinPointer(at, 'type'), `UI type ${String(type)} does not suit field \`${name}\` (a ${field.kind.replace('_', ' ')} field)`,
      `use ${Object.entries(UI_FIELD_TYPES).filter(([, r]) => r.kinds?.includes(field.kind)).map(([t]) => t).join(' or ')}`, 'warning'));
  }
  if (type === 'ATTACHMENT') issues.push(...fileTypeIssues(definition.allowableFileTypes, joinPointer(at, 'allowableFileTypes')));
  if (type === 'CHOICE_LIST' && definition.choices !== undefined) issues.push(...choicesIssues(definition.choices, joinPointer(at, 'choices'), field));
  if (type === 'COLLECTION') issues.push(...collectionIssues(name, definition, at, field));
  return issues;
}

function fileTypeIssues(value: unknown, at: string): SchemaIssue[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [definitionError(at, '`allowableFileTypes` must be an array', 'e.g. `["image", "document"]`')];
  return value.flatMap((entry, i) => FILE_TYPES.has(entry as string) ? [] : [definitionError(joinPointer(at, i),
    `unknown file type ${JSON.stringify(entry)}`, 'use image, document, video or audio')]);
}

function choicesIssues(choices: unknown, at: string, field: FieldInfo | undefined): SchemaIssue[] {
  if (!isJsonObject(choices)) return [definitionError(at, '`choices` must be an object', 'e.g. `{"type": "EXISTING_CHOICE_LIST", "existingChoiceList": ["<list>"]}`')];
  const issues: SchemaIssue[] = [];
  if (choices.type !== undefined && !CHOICE_SOURCES.has(choices.type as string)) {
    issues.push(definitionError(joinPointer(at, 'type'), `unknown choices type ${JSON.stringify(choices.type)}`, 'use EXISTING_CHOICE_LIST or MY_DATA'));
  }
  for (const key of CHOICE_ARRAYS) {
    const value = choices[key];
    if (value !== undefined && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
      issues.push(definitionError(joinPointer(at, key), `\`${key}\` must be an array of strings`, 'use `[]` when empty'));
    }
  }
  if (choices.myDataType !== undefined && typeof choices.myDataType !== 'string') {
    issues.push(definitionError(joinPointer(at, 'myDataType'), '`myDataType` must be a string', 'use `""` when unused'));
  } else if (typeof choices.myDataType === 'string' && !MY_DATA_TYPES.has(choices.myDataType)) {
    issues.push(definitionError(joinPointer(at, 'myDataType'), `unknown \`myDataType\` ${JSON.stringify(choices.myDataType)}`,
      `known values: ${[...MY_DATA_TYPES].map((v) => JSON.stringify(v)).join(', ')}`, 'warning'));
  }
  for (const key of Object.keys(choices)) {
    if (key !== 'type' && key !== 'myDataType' && !CHOICE_ARRAYS.includes(key)) {
      issues.push(definitionError(joinPointer(at, key), `\`${key}\` is not a key of \`choices\``, 'remove it', 'warning'));
    }
  }
  const listed = Array.isArray(choices.existingChoiceList) ? choices.existingChoiceList : [];
  if (field && choices.type === 'EXISTING_CHOICE_LIST') {
    for (const list of field.choiceFields.filter((f) => !listed.includes(f))) {
      issues.push(definitionError(joinPointer(at, 'existingChoiceList'), `choice list \`${list}\` referenced by the schema is not in \`existingChoiceList\``,
        `add "${list}" to \`existingChoiceList\``, 'warning'));
    }
  }
  return issues;
}

function collectionIssues(name: string, definition: JsonObject, at: string, field: FieldInfo | undefined): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  if (definition.columns !== undefined && definition.columns !== 1 && definition.columns !== 2) {
    issues.push(definitionError(joinPointer(at, 'columns'), '`columns` of a collection must be 1 or 2', 'use 1 or 2'));
  }
  for (const side of ['leftColumn', 'rightColumn']) {
    const list = definition[side];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      issues.push(definitionError(joinPointer(at, side), `\`${side}\` must be an array of item field names`, 'e.g. `["species", "count"]`'));
      continue;
    }
    list.forEach((entry, i) => {
      if (field && typeof entry === 'string' && field.children.has(entry)) return;
      issues.push(schemaIssue('ui_reference_error', {
        pointer: joinPointer(at, side, i), message: `collection \`${name}\` lists ${JSON.stringify(entry)}, which is not one of its item fields`,
        hints: [`use a key of \`items.properties\` of \`json.properties.${name}\``],
      }));
    });
  }
  return issues;
}
