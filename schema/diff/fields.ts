/**
 * Flattening a schema document into the fields of its form: every `properties` entry of the
 * root, of nested objects and of collections' items, with its pointer, title, kind, type,
 * format, required flag, constraints, choices and the canonical text of every keyword the diff
 * does not interpret (so that no change goes unnoticed). Bounded: the schema's depth is checked
 * first (`MAX_SCHEMA_DEPTH`) and at most `MAX_DIFF_FIELDS` fields are read.
 */
import { classifyField, type FieldKind } from '../field-kinds.js';
import { isJsonObject, joinPointer, type JsonObject } from '../json-pointer.js';
import { MAX_SCHEMA_DEPTH, tooDeepAt } from '../schema-depth.js';
import { canonicalJson, canonicalRest } from './canonical.js';
import { choiceSetOf, type ChoiceSet } from './choices.js';
import { CONSTRAINT_KEYWORDS } from './constraints.js';
import { MAX_DIFF_FIELDS, SchemaDiffLimitError, type ChoiceLookup } from './types.js';

export interface DiffField {
  name: string;
  /** Unique within the document: the parent's key, `/`, the escaped name (`/animals/tag`). */
  key: string;
  parentKey: string;
  /** Name path for messages: `animals.tag`. */
  label: string;
  pointer: string;
  /** Position among its siblings in `properties`. */
  index: number;
  depth: number;
  title?: string;
  kind: FieldKind;
  /** `type` as text, `|`-joined and sorted; arrays show their items: `array<string>`. */
  type: string;
  format?: string;
  required: boolean;
  /** Constraint keyword (prefixed `items/` for the items of a list) → value. */
  constraints: Map<string, unknown>;
  /** Where the constraints and choices of a list live (`<pointer>/items`), else the pointer. */
  valuePointer: string;
  choices?: ChoiceSet;
  /** Canonical JSON of `description`, `default`, `deprecated`, `examples`, keyed by keyword. */
  annotations: Map<string, string>;
  /** Canonical JSON of the keywords not interpreted above ('' when none). */
  rest: string;
}

/** A `required` list: its pointer, and the names it holds that no sibling `properties` entry defines. */
export interface RequiredList {
  pointer: string;
  names: Set<string>;
  orphans: string[];
}

export interface FlatSchema {
  fields: Map<string, DiffField>;
  /**
   * Every `required` list, keyed by the key of the schema holding it: '' for the root, a field's
   * key, or the field's key + `~items` for its items (`~i` never occurs in an escaped name).
   */
  required: Map<string, RequiredList>;
  /** Children of each field key ('' is the root), in document order. */
  children: Map<string, DiffField[]>;
  rootTitle?: string;
  rootRest: string;
}

export const ANNOTATION_KEYWORDS = ['description', 'default', 'deprecated', 'examples', 'readOnly', 'writeOnly'] as const;
const FIELD_KEYWORDS = new Set<string>([
  'title', 'type', 'format', 'properties', 'required', 'items', '$comment', ...ANNOTATION_KEYWORDS, ...CONSTRAINT_KEYWORDS,
]);
const ITEM_KEYWORDS = new Set(['type', 'properties', 'required', 'title', 'description', '$comment']);
const CONSTRAINT_SET: ReadonlySet<string> = new Set(CONSTRAINT_KEYWORDS);
const ROOT_KEYWORDS = new Set(['$schema', 'title', 'description', 'properties', 'required', '$comment']);
const escapeName = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

export function typeText(schema: unknown): string {
  if (!isJsonObject(schema)) return schema === false ? 'never' : '';
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.map(String).sort() : [];
  const text = types.join('|');
  if (types.includes('array') && isJsonObject(schema.items)) {
    const items = isJsonObject(schema.items.properties) && !schema.items.type ? 'object' : typeText(schema.items);
    return text.replace('array', `array<${items}>`);
  }
  return text;
}

export const ITEMS_KEY_SUFFIX = '~items';

export function flattenSchema(doc: unknown, lookup: ChoiceLookup | undefined): FlatSchema {
  const raw = isJsonObject(doc) ? doc.json : undefined;
  const json = isJsonObject(raw) ? raw : {};
  const deep = tooDeepAt(json, '/json');
  if (deep !== undefined) throw new SchemaDiffLimitError(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`, deep);
  // a boolean (or absent) root: `true` and absent accept what `{}` accepts; anything else differs
  const rootRest = isJsonObject(raw) ? canonicalRest(json, (k) => ROOT_KEYWORDS.has(k), '/json') : raw === undefined || raw === true ? '' : canonicalJson(raw, '/json');
  const flat: FlatSchema = {
    fields: new Map(), required: new Map(), children: new Map(), rootRest,
    ...(typeof json.title === 'string' ? { rootTitle: json.title } : {}),
  };
  recordRequired(flat, '', json, '/json');
  addChildren(flat, json, '/json', '', '', 0, lookup);
  return flat;
}

function recordRequired(flat: FlatSchema, key: string, schema: JsonObject, pointer: string): void {
  if (!Array.isArray(schema.required)) return;
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const names = new Set(schema.required.filter((r): r is string => typeof r === 'string'));
  const orphans = [...names].filter((name) => !Object.hasOwn(properties, name));
  flat.required.set(key, { pointer: joinPointer(pointer, 'required'), names, orphans });
}

/** The object schema holding a field's sub-fields: itself, or its items for a list of objects. */
function objectOf(schema: JsonObject, pointer: string): [JsonObject, string] | undefined {
  if (isJsonObject(schema.properties)) return [schema, pointer];
  if (isJsonObject(schema.items) && isJsonObject(schema.items.properties)) return [schema.items, joinPointer(pointer, 'items')];
  return undefined;
}

function addChildren(flat: FlatSchema, objectSchema: JsonObject, pointer: string, parentKey: string, parentLabel: string, depth: number, lookup: ChoiceLookup | undefined): void {
  const properties = isJsonObject(objectSchema.properties) ? objectSchema.properties : {};
  const required = new Set(Array.isArray(objectSchema.required) ? objectSchema.required.filter((r) => typeof r === 'string') : []);
  const list: DiffField[] = [];
  flat.children.set(parentKey, list);
  let index = 0;
  for (const [name, value] of Object.entries(properties)) {
    if (flat.fields.size >= MAX_DIFF_FIELDS) throw new SchemaDiffLimitError(`the schema has more than ${MAX_DIFF_FIELDS} fields`, pointer);
    const at = joinPointer(pointer, 'properties', name);
    const schema: JsonObject = isJsonObject(value) ? value : {};
    const key = `${parentKey}/${escapeName(name)}`;
    const identity = { name, key, parentKey, label: parentLabel ? `${parentLabel}.${name}` : name, pointer: at, index: index++, depth, required: required.has(name) };
    const full = describeField(identity, schema, value, lookup);
    flat.fields.set(key, full);
    list.push(full);
    recordRequired(flat, key, schema, at);
    if (isJsonObject(schema.items)) recordRequired(flat, key + ITEMS_KEY_SUFFIX, schema.items, joinPointer(at, 'items'));
    const inner = objectOf(schema, at);
    if (inner) addChildren(flat, inner[0], inner[1], key, full.label, depth + 1, lookup);
  }
}

type FieldIdentity = Pick<DiffField, 'name' | 'key' | 'parentKey' | 'label' | 'pointer' | 'index' | 'depth' | 'required'>;

/**
 * NOTE: builds each field as one object literal of a fixed shape; spreading a partial object
 * into the final one made flattening 4-5 times slower (V8 object cloning), past the 50 ms target.
 */
function describeField(identity: FieldIdentity, schema: JsonObject, raw: unknown, lookup: ChoiceLookup | undefined): DiffField {
  const pointer = identity.pointer;
  const items = isJsonObject(schema.items) ? schema.items : undefined;
  // a list of plain values keeps its choices and constraints on `items`
  const listOfValues = items !== undefined && !isJsonObject(items.properties);
  const constraints = new Map<string, unknown>();
  for (const keyword of CONSTRAINT_KEYWORDS) if (Object.hasOwn(schema, keyword)) constraints.set(keyword, schema[keyword]);
  const choiceHost = listOfValues ? items : schema;
  const valuePointer = listOfValues ? joinPointer(pointer, 'items') : pointer;
  const choices = choiceSetOf(choiceHost, valuePointer, lookup);
  const choiceKeywords = choices?.keywords ?? [];
  const skip = (k: string): boolean => FIELD_KEYWORDS.has(k) || (!listOfValues && choiceKeywords.includes(k));
  let rest = isJsonObject(raw) ? canonicalRest(schema, skip, pointer) : canonicalJson(raw, pointer);
  if (items) {
    // a list of values: its items' constraints, format and choices are the field's own
    if (listOfValues) for (const keyword of CONSTRAINT_KEYWORDS) if (Object.hasOwn(items, keyword)) constraints.set(`items/${keyword}`, items[keyword]);
    const itemSkip = (k: string): boolean => ITEM_KEYWORDS.has(k) || (listOfValues && (CONSTRAINT_SET.has(k) || k === 'format' || choiceKeywords.includes(k)));
    const itemRest = canonicalRest(items, itemSkip, joinPointer(pointer, 'items'));
    if (itemRest) rest += `items:${itemRest}`;
  }
  const annotations = new Map<string, string>();
  for (const keyword of ANNOTATION_KEYWORDS) if (Object.hasOwn(schema, keyword)) annotations.set(keyword, canonicalJson(schema[keyword], pointer));
  const format = listOfValues && typeof items.format === 'string' ? items.format : typeof schema.format === 'string' ? schema.format : undefined;
  const kind = classifyField(raw);
  return {
    name: identity.name, key: identity.key, parentKey: identity.parentKey, label: identity.label, pointer,
    index: identity.index, depth: identity.depth, required: identity.required,
    title: typeof schema.title === 'string' ? schema.title : undefined,
    // `const: v` is a list of one choice, as `enum: [v]` is (the field kinds only know `enum`)
    kind: choices && Object.hasOwn(choiceHost, 'const') && !Array.isArray(choiceHost.enum) && (kind === 'text' || (listOfValues && kind === 'unknown')) ? 'inline_choice' : kind,
    type: typeText(raw),
    format,
    constraints, valuePointer, annotations, rest,
    choices,
  };
}

/**
 * Groups field kinds whose difference is reported by other changes: date/time kinds differ from
 * text by `format` (a format change); choice kinds by where their values come from (choice
 * changes) or by their `type` (single string vs array).
 */
export function kindFamily(kind: FieldKind): string {
  if (kind === 'date' || kind === 'time' || kind === 'date_time') return 'text';
  return kind === 'single_choice' || kind === 'multi_choice' || kind === 'inline_choice' ? 'choice' : kind;
}
