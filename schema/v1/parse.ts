/**
 * `parseV1`: reads a v1 event type document — template TEXT, not JSON — into its parts:
 * `{"schema": {draft-04 JSON Schema}, "definition": [form layout]}` with the template tags
 * listed (with line, column and the JSON Pointer where each sits; in `schema`/`definition` that
 * place holds `null`). Syntax errors and malformed tags are reported with line and column;
 * several problems are reported at once where the text allows.
 */
import { schemaIssue, type SchemaIssue } from '../issues.js';
import { getAtPointer, isJsonObject, joinPointer, parsePointer, setKey, type JsonObject } from '../json-pointer.js';
import { JsonSyntaxError, LineIndex, parseJsonWithLocations } from '../json-text.js';
import { maskTags, scanTemplateTags, type TagKind, type TagLookup } from './tags.js';

export interface V1Tag {
  /** Where the choices come from: `enum` (choice records), `query` (dynamic), `table` (legacy). */
  lookup: TagLookup;
  /** The choice list name. */
  field: string;
  /** What the tag renders to: `values`, `names` or `map`. */
  kind: TagKind;
  line: number;
  column: number;
  /** JSON Pointer of the tag's place in the v1 document, e.g. `/schema/properties/sex/enum`. */
  pointer: string;
}

export interface ParsedV1 {
  /** The whole document with tags replaced by `null`; null when the text cannot be read. */
  document: JsonObject | null;
  schema: JsonObject | null;
  definition: unknown[] | null;
  /** Pointer of the definition actually used (`/definition`, or `/schema/definition`). */
  definitionPointer: string | null;
  tags: V1Tag[];
  issues: SchemaIssue[];
  /** Line and column of the value at a pointer of the v1 document (undefined when unknown). */
  locate(pointer: string): { line: number; column: number } | undefined;
}

const ROOT_KEYS = new Set(['schema', 'definition', 'auto-generate']);

export function parseV1(text: string): ParsedV1 {
  const lines = new LineIndex(text);
  const scan = scanTemplateTags(text, lines);
  const result: ParsedV1 = {
    document: null, schema: null, definition: null, definitionPointer: null, tags: [], issues: [...scan.issues], locate: () => undefined,
  };
  let parsed;
  try {
    parsed = parseJsonWithLocations(maskTags(text, scan.spans));
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    result.issues.push(schemaIssue('schema_parsing_error', {
      message: `the v1 document is not valid JSON once its tags are set aside: ${error.message}`,
      hints: ['fix the JSON syntax at the given position'], location: error.position,
    }));
    return result;
  }
  const { locations } = parsed;
  result.locate = (pointer) => {
    const location = locations.get(pointer);
    return location ? lines.position(location.valueOffset) : undefined;
  };
  const pointerAt = new Map<number, string>();
  for (const [pointer, location] of parsed.locations) pointerAt.set(location.valueOffset, pointer);
  scan.issues.forEach((issue, n) => {
    const pointer = pointerAt.get(scan.issueOffsets[n] ?? -1);
    if (pointer !== undefined) issue.pointer = pointer;
  });
  const document = parsed.value;
  for (const tag of scan.tags) {
    const pointer = pointerAt.get(tag.start) ?? '';
    result.tags.push({ lookup: tag.lookup, field: tag.field, kind: tag.kind, line: tag.line, column: tag.column, pointer });
  }
  for (const [start] of scan.spans) {
    const pointer = pointerAt.get(start);
    if (pointer !== undefined && pointer !== '') setAt(document, pointer, null);
  }
  if (!isJsonObject(document)) {
    result.issues.push(schemaIssue('schema_structure_error', {
      message: 'a v1 document must be an object `{"schema": {...}, "definition": [...]}`', hints: ['wrap the schema as `{"schema": ..., "definition": [...]}`'],
    }));
    return result;
  }
  result.document = document;
  result.issues.push(...structureIssues(document, result));
  return result;
}

function structureIssues(document: JsonObject, result: ParsedV1): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const key of Object.keys(document)) {
    if (!ROOT_KEYS.has(key)) {
      issues.push(schemaIssue('schema_structure_error', {
        severity: 'warning', pointer: `/${key}`, message: `unknown v1 root key \`${key}\`; it is ignored`, hints: ['a v1 document has `schema` and `definition`'],
      }));
    }
  }
  if (!isJsonObject(document.schema)) {
    issues.push(schemaIssue('schema_structure_error', {
      pointer: '/schema', message: 'a v1 document needs a `schema` object', hints: ['put the draft-04 JSON Schema under `schema`'],
    }));
    return issues;
  }
  result.schema = document.schema;
  const nested = document.schema.definition;
  if (Array.isArray(document.definition)) {
    result.definition = document.definition;
    result.definitionPointer = '/definition';
  } else if (document.definition !== undefined) {
    issues.push(schemaIssue('schema_structure_error', {
      pointer: '/definition', message: '`definition` must be an array', hints: ['list the form entries in an array'],
    }));
  } else if (Array.isArray(nested)) {
    result.definition = nested;
    result.definitionPointer = '/schema/definition';
    issues.push(schemaIssue('schema_structure_error', {
      severity: 'warning', pointer: '/schema/definition',
      message: '`definition` is inside `schema` instead of next to it; it is used as the form definition',
      hints: ['move `definition` to the root of the document'],
    }));
  }
  const version = document.schema.$schema;
  if (typeof version !== 'string' || !/draft-0[34]\/schema/.test(version)) {
    issues.push(schemaIssue('schema_version_error', {
      severity: 'warning', pointer: '/schema/$schema',
      message: `v1 schemas are JSON Schema draft-04; \`$schema\` is ${JSON.stringify(version)}`,
      hints: ['set "$schema": "http://json-schema.org/draft-04/schema#"'],
    }));
  }
  return issues;
}

/** Sets the value at an existing pointer (parent containers must exist). */
export function setAt(root: unknown, pointer: string, value: unknown): void {
  const tokens = parsePointer(pointer);
  const last = tokens.pop();
  const parent = getAtPointer(root, joinPointer('', ...tokens));
  if (last === undefined) return;
  if (Array.isArray(parent)) parent[Number(last)] = value;
  else if (isJsonObject(parent)) setKey(parent, last, value);
}
