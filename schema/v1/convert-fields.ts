/**
 * v1 properties → v2 field schemas. Choices come, in this order of preference, from a template
 * tag on the property (`enum`/`enumNames`), an inline `enum`, a tag in the form definition's
 * `titleMap`, or an inline `titleMap`; they become a choice reference (`anyOf: [{$ref}]`, or on
 * `items` for a multi choice). A definition entry of type `checkboxes` (or the v1 pseudo-type
 * `checkboxes`) makes a multi choice. Date-time pickers (`type: datetime`, or a
 * `date-time-picker` class) get `format: date-time`. Arrays of objects are collections whose
 * item fields are converted the same way.
 */
import { choiceReferenceUrl } from '../choice-reference.js';
import { schemaIssue, type SchemaIssue } from '../issues.js';
import { isJsonObject, joinPointer, setKey, type JsonObject } from '../json-pointer.js';
import { createChoiceList, displaysFor, type ChoiceNaming } from './new-choices.js';
import { choiceListOf } from './render.js';
import type { V1Tag } from './parse.js';

export type FieldPlanKind = 'text' | 'long_text' | 'numeric' | 'choice' | 'multi_choice' | 'date_time' | 'date' | 'collection' | 'other';

export interface FieldPlan {
  kind: FieldPlanKind;
  choiceFields: string[];
  inputType?: string;
  children: string[];
}

export interface DefinitionEntry {
  entry: JsonObject;
  pointer: string;
}

export interface FieldContext {
  baseUrl: string;
  tags: ReadonlyMap<string, V1Tag>;
  definitions: ReadonlyMap<string, DefinitionEntry>;
  naming: ChoiceNaming;
  warn: (issue: SchemaIssue) => void;
  warnedLists: Set<string>;
}

const ORDER = ['type', 'title', 'description'];

export function convertProperties(properties: JsonObject, pointer: string, ctx: FieldContext, topLevel: boolean): { properties: JsonObject; plans: Map<string, FieldPlan> } {
  const out: JsonObject = {};
  const plans = new Map<string, FieldPlan>();
  for (const [name, prop] of Object.entries(properties)) {
    const converted = convertField(name, prop, joinPointer(pointer, name), ctx, topLevel ? ctx.definitions.get(name) : undefined);
    setKey(out, name, converted.schema);
    plans.set(name, converted.plan);
  }
  return { properties: out, plans };
}

function convertField(name: string, raw: unknown, pointer: string, ctx: FieldContext, def: DefinitionEntry | undefined): { schema: JsonObject; plan: FieldPlan } {
  const note = (at: string, message: string, hint: string): void =>
    ctx.warn(schemaIssue('migration_warning', { severity: 'warning', pointer: at, message, hints: [hint] }));
  if (!isJsonObject(raw)) {
    note(pointer, `property \`${name}\` is not a schema object; it becomes a text field`, 'describe it with `{"type": "string", "title": ...}`');
    return { schema: { type: 'string', title: name }, plan: plan('text') };
  }
  const prop: JsonObject = { ...raw };
  const entry = def?.entry;
  const title = pickTitle(name, prop, entry, pointer, note);
  const multi = prop.type === 'checkboxes' || entry?.type === 'checkboxes' || (prop.type === 'array' && isJsonObject(prop.items) && 'enum' in prop.items);
  const lists = choiceSource(name, multi && isJsonObject(prop.items) && 'enum' in prop.items ? prop.items : prop,
    multi && isJsonObject(prop.items) && 'enum' in prop.items ? joinPointer(pointer, 'items') : pointer, def, ctx);
  for (const key of ['enumNames', 'key']) delete prop[key];
  if (lists || !Array.isArray(prop.enum)) delete prop.enum;
  if (title !== undefined) prop.title = title;
  if (lists) {
    const anyOf = [{ $ref: choiceReferenceUrl(ctx.baseUrl, lists) }];
    if (multi) {
      const schema = ordered({ ...prop, type: 'array', uniqueItems: true, items: { type: 'string', anyOf } });
      return { schema, plan: { ...plan('multi_choice', 'CHECKBOX'), choiceFields: lists } };
    }
    const input = entry?.type === 'radios' ? 'RADIO' : 'DROPDOWN';
    return { schema: ordered({ ...prop, type: 'string', anyOf }), plan: { ...plan('choice', input), choiceFields: lists } };
  }
  if (prop.type === 'array' && isJsonObject(prop.items) && isJsonObject(prop.items.properties)) {
    const items = prop.items;
    const nested = convertProperties(items.properties as JsonObject, joinPointer(pointer, 'items', 'properties'), ctx, false);
    const schema = ordered({ ...prop, items: ordered({ ...items, type: 'object', properties: nested.properties }) });
    return { schema, plan: { ...plan('collection'), children: [...nested.plans.keys()] } };
  }
  const composed = ['$ref', 'anyOf', 'oneOf', 'allOf', 'enum', 'const'].some((k) => k in prop);
  if ((prop.type === undefined && !composed) || prop.type === 'checkboxes') {
    note(pointer, `property \`${name}\` has no usable type; it becomes a text field`, 'give it a JSON Schema `type`');
    prop.type = 'string';
  }
  return fieldOfType(name, prop, entry, pointer, note);
}

function fieldOfType(name: string, prop: JsonObject, entry: JsonObject | undefined, pointer: string, note: (at: string, m: string, h: string) => void): { schema: JsonObject; plan: FieldPlan } {
  const schema = ordered(prop);
  if (prop.type === 'number' || prop.type === 'integer') return { schema, plan: plan('numeric') };
  if (prop.type !== 'string') return { schema, plan: plan('other') };
  const widget = typeof entry?.type === 'string' ? entry.type : '';
  const cssClass = [entry?.fieldHtmlClass, entry?.htmlClass].filter((c) => typeof c === 'string').join(' ');
  if (prop.format === undefined && (['datetime', 'date-time'].includes(widget) || /date-?time-picker/.test(cssClass))) {
    schema.format = 'date-time';
    if (!['datetime', 'date-time'].includes(widget)) {
      note(pointer, `\`${name}\` used a date-time picker and becomes a date-time field`, 'events stored before may hold values that are not RFC 3339 date-times');
    }
  } else if (prop.format === undefined && widget === 'date') {
    schema.format = 'date';
  }
  if (schema.format === 'date-time') return { schema, plan: plan('date_time', 'DATE_TIME') };
  if (schema.format === 'date') return { schema, plan: plan('date', 'DATE') };
  return { schema, plan: plan(widget === 'textarea' ? 'long_text' : 'text') };
}

function plan(kind: FieldPlanKind, inputType?: string): FieldPlan {
  const p: FieldPlan = { kind, choiceFields: [], children: [] };
  if (inputType) p.inputType = inputType;
  return p;
}

function pickTitle(name: string, prop: JsonObject, entry: JsonObject | undefined, pointer: string, note: (at: string, m: string, h: string) => void): string | undefined {
  const own = typeof prop.title === 'string' ? prop.title : undefined;
  const form = typeof entry?.title === 'string' ? entry.title : undefined;
  if (own !== undefined && form !== undefined && own !== form) {
    note(joinPointer(pointer, 'title'), `the form title of \`${name}\` (${JSON.stringify(form)}) differs from the schema title; the schema title is kept`, 'edit `title` if the form title was the one shown');
  }
  return own ?? form;
}

/** The choice list names of a field, creating lists for inline values; undefined for no choices. */
function choiceSource(name: string, prop: JsonObject, pointer: string, def: DefinitionEntry | undefined, ctx: FieldContext): string[] | undefined {
  const tag = ctx.tags.get(joinPointer(pointer, 'enum')) ?? ctx.tags.get(joinPointer(pointer, 'enumNames'))
    ?? (def ? ctx.tags.get(joinPointer(def.pointer, 'titleMap')) : undefined);
  if (tag) return [useTag(tag, ctx)];
  if (Array.isArray(prop.enum)) {
    const list = createChoiceList(name, displaysFor(prop.enum, prop.enumNames), ctx.naming, joinPointer(pointer, 'enum'), ctx.warn);
    if (list) return [list];
    ctx.warn(schemaIssue('migration_warning', {
      severity: 'warning', pointer: joinPointer(pointer, 'enum'),
      message: `\`${name}\` lists non-string values; they stay an inline \`enum\``, hints: ['choice lists hold strings only'],
    }));
    return undefined;
  }
  const titleMap = def?.entry.titleMap;
  if (def && Array.isArray(titleMap)) {
    const entries = titleMap.filter(isJsonObject).map((e) => ({ value: e.value, display: e.name }));
    const list = createChoiceList(name, entries, ctx.naming, joinPointer(def.pointer, 'titleMap'), ctx.warn);
    return list ? [list] : undefined;
  }
  return undefined;
}

function useTag(tag: V1Tag, ctx: FieldContext): string {
  ctx.naming.used.add(tag.field);
  if (ctx.warnedLists.has(tag.field)) return tag.field;
  ctx.warnedLists.add(tag.field);
  const at = { pointer: tag.pointer, location: { line: tag.line, column: tag.column } };
  if (tag.lookup !== 'enum') {
    ctx.warn(schemaIssue('migration_warning', {
      severity: 'warning', ...at,
      message: `\`${tag.field}\` is a ${tag.lookup === 'query' ? 'dynamic (query)' : 'table'} choice list; v2 references a choice list of the same name, which must exist`,
      hints: [`create the choices of \`${tag.field}\` (e.g. from the subjects it listed), or point the field at another list`],
    }));
  } else if (ctx.naming.existing && !choiceListOf(ctx.naming.existing, tag.field)) {
    ctx.warn(schemaIssue('migration_warning', {
      severity: 'warning', ...at,
      message: `choice list \`${tag.field}\` has no choices`, hints: [`create choices with field \`${tag.field}\` before using the type`],
    }));
  }
  return tag.field;
}

/** Copy with `type`, `title`, `description` first, the rest in their original order. */
function ordered(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of ORDER) if (key in schema) out[key] = schema[key];
  for (const [key, value] of Object.entries(schema)) if (!ORDER.includes(key)) setKey(out, key, value);
  return out;
}
