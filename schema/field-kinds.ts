/**
 * Field kinds of an event type (`json.properties` entries) and their shape rules. Each field is
 * classified by its JSON shape; the catalog is used again by the `ui` checks (a UI entry must
 * name a field, and its UI type should suit the field's kind).
 *
 * | kind          | shape                                                               |
 * |---------------|---------------------------------------------------------------------|
 * | text          | `type: string` (optional minLength/maxLength/pattern, format email/uri) |
 * | numeric       | `type: number` or `integer`                                         |
 * | boolean       | `type: boolean`                                                     |
 * | single_choice | `type: string`, `anyOf: [{$ref: <choice URL>}]`                     |
 * | multi_choice  | `type: array`, `items.anyOf: [{$ref: <choice URL>}]`                |
 * | inline_choice | a frozen list (`enum`, or `anyOf`/`oneOf` of `const`/`enum`): accepted, with a warning |
 * | date / time / date_time | `type: string`, `format: date` / `time` / `date-time` (time zones required) |
 * | point, polygon | GeoJSON, see geometry-fields.ts                                    |
 * | location      | `type: object` with `latitude`/`longitude` (the EarthRanger builder's form) |
 * | attachment    | `type: array`, items `{filename: string, content_type: string, size: integer}` |
 * | collection    | `type: array` of objects; item fields are classified recursively    |
 */
import { looksLikeChoiceReference, parseChoiceReference } from './choice-reference.js';
import { pointIssues, polygonIssues } from './geometry-fields.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { isJsonObject, joinPointer, type JsonObject } from './json-pointer.js';

export type FieldKind =
  | 'text' | 'numeric' | 'boolean' | 'single_choice' | 'multi_choice' | 'inline_choice'
  | 'date' | 'time' | 'date_time' | 'point' | 'polygon' | 'location' | 'attachment'
  | 'collection' | 'unknown';

export interface FieldInfo {
  name: string;
  pointer: string;
  kind: FieldKind;
  /** Choice lists referenced by the field. */
  choiceFields: string[];
  /** Fields of a collection's items. */
  children: Map<string, FieldInfo>;
}

export interface FieldScan {
  fields: Map<string, FieldInfo>;
  issues: SchemaIssue[];
}

const ATTACHMENT_KEYS = new Set(['filename', 'content_type', 'size']);
const DATE_FORMATS: Record<string, FieldKind> = { date: 'date', time: 'time', 'date-time': 'date_time' };

/** Choice lists named by the `$ref` entries of an `anyOf` (empty when none). */
export function choiceFieldsOf(schema: unknown): string[] {
  if (!isJsonObject(schema) || !Array.isArray(schema.anyOf)) return [];
  return schema.anyOf.flatMap((entry) =>
    isJsonObject(entry) && typeof entry.$ref === 'string' ? parseChoiceReference(entry.$ref)?.fields ?? [] : []);
}

function hasChoiceRef(schema: unknown): boolean {
  return isJsonObject(schema) && Array.isArray(schema.anyOf) &&
    schema.anyOf.some((e) => isJsonObject(e) && typeof e.$ref === 'string' && looksLikeChoiceReference(e.$ref));
}

function isInlineChoice(schema: JsonObject): boolean {
  if (Array.isArray(schema.enum)) return true;
  const list = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  return !!list && list.length > 0 && list.every((e) => isJsonObject(e) && ('const' in e || Array.isArray(e.enum)));
}

export function classifyField(schema: unknown): FieldKind {
  if (!isJsonObject(schema)) return 'unknown';
  const type = schema.type;
  if (type === 'array') {
    const items = schema.items;
    if (!isJsonObject(items)) return 'unknown';
    if (hasChoiceRef(items)) return 'multi_choice';
    if (isInlineChoice(items)) return 'inline_choice';
    if (items.type === 'object' || isJsonObject(items.properties)) {
      const keys = Object.keys(isJsonObject(items.properties) ? items.properties : {});
      const attachment = keys.length > 0 && keys.every((k) => ATTACHMENT_KEYS.has(k)) && keys.includes('filename');
      return attachment ? 'attachment' : 'collection';
    }
    return 'unknown';
  }
  if (hasChoiceRef(schema)) return 'single_choice';
  if (type === 'object' || isJsonObject(schema.properties)) {
    const props = isJsonObject(schema.properties) ? schema.properties : {};
    const geometry = isJsonObject(props.type) ? props.type.const : undefined;
    if (geometry === 'Point') return 'point';
    if (geometry === 'Polygon') return 'polygon';
    if ('latitude' in props && 'longitude' in props) return 'location';
    return 'unknown';
  }
  if (type === 'number' || type === 'integer') return 'numeric';
  if (type === 'boolean') return 'boolean';
  if (type === 'string') {
    if (isInlineChoice(schema)) return 'inline_choice';
    const format = typeof schema.format === 'string' && Object.hasOwn(DATE_FORMATS, schema.format) ? DATE_FORMATS[schema.format] : undefined;
    return format ?? 'text';
  }
  return 'unknown';
}

/**
 * Classifies and checks every field of an object schema (the root, or a collection's items).
 * `hasErrorBelow(pointer)` tells which fields already have errors from earlier checks: those get
 * no "unsupported kind" warning on top.
 */
export function scanFields(objectSchema: JsonObject, pointer: string, hasErrorBelow: (pointer: string) => boolean = () => false): FieldScan {
  const fields = new Map<string, FieldInfo>();
  const issues: SchemaIssue[] = [];
  const properties = isJsonObject(objectSchema.properties) ? objectSchema.properties : {};
  for (const [name, schema] of Object.entries(properties)) {
    const at = joinPointer(pointer, 'properties', name);
    const info: FieldInfo = { name, pointer: at, kind: classifyField(schema), choiceFields: [], children: new Map() };
    fields.set(name, info);
    if (!isJsonObject(schema)) {
      issues.push(schemaIssue('schema_validation_error', {
        severity: 'warning', pointer: at, message: `field \`${name}\` is a boolean schema, not a field definition`,
        hints: ['describe the field with an object such as `{"type": "string", "title": "..."}`'],
      }));
      continue;
    }
    if (info.kind === 'unknown' && hasErrorBelow(at)) continue;
    issues.push(...kindIssues(info, schema, hasErrorBelow));
  }
  issues.push(...requiredIssues(objectSchema, pointer));
  return { fields, issues };
}

function kindIssues(info: FieldInfo, schema: JsonObject, hasErrorBelow: (pointer: string) => boolean): SchemaIssue[] {
  const { name, pointer } = info;
  switch (info.kind) {
    case 'single_choice':
      info.choiceFields = choiceFieldsOf(schema);
      return schema.type === 'string' ? [] : [schemaIssue('schema_validation_error', {
        pointer: joinPointer(pointer, 'type'),
        message: `single choice field \`${name}\` must have \`type: "string"\``,
        hints: ['choice values are strings; a list of values is a multi choice: `type: "array"` with `items.anyOf`'],
      })];
    case 'multi_choice': {
      const items = schema.items as JsonObject;
      info.choiceFields = choiceFieldsOf(items);
      return items.type === undefined || items.type === 'string' ? [] : [schemaIssue('schema_validation_error', {
        pointer: joinPointer(pointer, 'items', 'type'),
        message: `multi choice field \`${name}\` must hold strings`,
        hints: ['use `"items": {"type": "string", "anyOf": [{"$ref": "<choice URL>"}]}`'],
      })];
    }
    case 'inline_choice':
      return [schemaIssue('schema_validation_error', {
        severity: 'warning', pointer,
        message: `field \`${name}\` carries its own list of values; it will not follow changes to choice lists`,
        hints: ['create the values as choices and use `"anyOf": [{"$ref": "<base>/v2.0/schemas/choices.json?field=<name>"}]`'],
      })];
    case 'point':
      return pointIssues(schema, pointer);
    case 'polygon':
      return polygonIssues(schema, pointer);
    case 'attachment':
      return attachmentIssues(name, schema, pointer);
    case 'collection': {
      const items = schema.items as JsonObject;
      const itemsAt = joinPointer(pointer, 'items');
      const nested = scanFields(items, itemsAt, hasErrorBelow);
      info.children = nested.fields;
      const typeIssue = items.type === 'object' ? [] : [schemaIssue('schema_validation_error', {
        pointer: joinPointer(itemsAt, 'type'), message: `the items of collection \`${name}\` must have \`type: "object"\``,
        hints: ['a collection is `{"type": "array", "items": {"type": "object", "properties": {...}}}`'],
      })];
      return [...typeIssue, ...nested.issues];
    }
    case 'unknown':
      return [schemaIssue('schema_validation_error', {
        severity: 'warning', pointer,
        message: `field \`${name}\` is none of the supported field kinds; forms may not render it`,
        hints: ['supported: text, number, choice, date/time, point, polygon, attachment, collection (see schema/README.md)'],
      })];
    default:
      return [];
  }
}

function attachmentIssues(name: string, schema: JsonObject, pointer: string): SchemaIssue[] {
  const items = schema.items as JsonObject;
  const properties = items.properties as JsonObject;
  const issues: SchemaIssue[] = [];
  for (const [key, type] of [['filename', 'string'], ['content_type', 'string'], ['size', 'integer']] as const) {
    const property = properties[key];
    if (!isJsonObject(property) || property.type !== type) {
      issues.push(schemaIssue('schema_validation_error', {
        pointer: joinPointer(pointer, 'items', 'properties', key),
        message: `attachment field \`${name}\` must describe \`${key}\` as \`{"type": "${type}"}\``,
        hints: ['attachment items are `{filename: string, content_type: string, size: integer}`'],
      }));
    }
  }
  return issues;
}

/** Names in `required` must be defined: with `unevaluatedProperties: false` nothing else can fill them. */
function requiredIssues(objectSchema: JsonObject, pointer: string): SchemaIssue[] {
  if (!Array.isArray(objectSchema.required)) return [];
  const properties = isJsonObject(objectSchema.properties) ? objectSchema.properties : {};
  const composed = ['allOf', 'anyOf', 'oneOf', 'if', '$ref', 'dependentSchemas'].some((k) => k in objectSchema);
  if (composed) return [];
  return objectSchema.required.flatMap((name, index) =>
    typeof name === 'string' && !Object.prototype.hasOwnProperty.call(properties, name)
      ? [schemaIssue('schema_validation_error', {
          pointer: joinPointer(pointer, 'required', index),
          message: `required field \`${name}\` is not defined in \`properties\``,
          hints: [`add \`${name}\` to \`properties\`, or remove it from \`required\``],
        })]
      : []);
}
