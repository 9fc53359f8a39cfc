/**
 * `migrateV1ToV2` (specification, Versioning 2; CONTRACT §5): identify template tags and choice
 * dependencies, replace them with choice references, convert draft-04 to 2020-12 and the form
 * definition to `ui`, normalise, then validate the result.
 *
 * Pointers: `warnings`/`errors` found while reading and converting point into the v1 document
 * (with `location`, its line and column, when known); issues found by validating the result
 * point into the v2 document. A non-empty `errors` means the migration must not be applied; the
 * best-effort `document` is still returned so the problems can be seen in context. The output is
 * deterministic: same input, same bytes.
 */
import { DRAFT_2020_12 } from '../ajv-factory.js';
import { errorsOf, warningsOf, type SchemaIssue } from '../issues.js';
import { isJsonObject, joinPointer, type JsonObject } from '../json-pointer.js';
import { normaliseDocument } from '../normalise.js';
import { validateDocument } from '../validate-document.js';
import { convertProperties, type DefinitionEntry } from './convert-fields.js';
import { convertLayout } from './convert-layout.js';
import { convertDraft04 } from './draft04.js';
import type { NewChoice } from './new-choices.js';
import { parseV1, type V1Tag } from './parse.js';
import type { ChoiceLists } from './render.js';

export interface MigrateOptions {
  /** API base for choice references, e.g. `https://site.example/api` (`''` for root-relative). */
  baseUrl: string;
  /** Existing choice lists: inline lists equal to one are reused; missing lists are reported. */
  choices?: ChoiceLists;
}

export interface MigrationResult {
  document: { json: JsonObject; ui: JsonObject } | null;
  newChoices: NewChoice[];
  warnings: SchemaIssue[];
  errors: SchemaIssue[];
}

const ROOT_CARRIED = ['$defs', 'allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas'];

export function migrateV1ToV2(text: string, options: MigrateOptions): MigrationResult {
  const parsed = parseV1(text);
  const issues: SchemaIssue[] = [];
  const warn = (issue: SchemaIssue): void => {
    if (!issue.location && issue.pointer !== '') {
      const location = parsed.locate(issue.pointer);
      if (location) issue.location = location;
    }
    issues.push(issue);
  };
  parsed.issues.forEach(warn);
  const naming = { existing: options.choices, used: new Set<string>(), created: [] as NewChoice[] };
  if (!parsed.schema) return { document: null, newChoices: [], warnings: warningsOf(issues), errors: errorsOf(issues) };

  const source = { ...parsed.schema };
  if (parsed.definitionPointer === '/schema/definition') delete source.definition;
  const schema = convertDraft04(source, '/schema', warn);
  const tags = new Map<string, V1Tag>(parsed.tags.map((t) => [t.pointer, t]));
  const definitions = definitionEntries(parsed.definition ?? [], parsed.definitionPointer ?? '/definition');
  const ctx = { baseUrl: options.baseUrl, tags, definitions, naming, warn, warnedLists: new Set<string>() };
  const converted = convertProperties(isJsonObject(schema.properties) ? schema.properties : {}, '/schema/properties', ctx, true);

  const json: JsonObject = { $schema: DRAFT_2020_12 };
  if (typeof schema.title === 'string') json.title = schema.title;
  if (typeof schema.description === 'string') json.description = schema.description;
  json.type = 'object';
  json.properties = converted.properties;
  json.required = requiredFields(schema, converted.properties, definitions, warn);
  for (const key of ROOT_CARRIED) if (key in schema) json[key] = schema[key];
  json.additionalProperties = false;
  const ui = convertLayout(parsed.definition, parsed.definitionPointer ?? '/definition', converted.plans, warn);
  const document = normaliseDocument({ json, ui });
  issues.push(...validateDocument(document).issues);
  return { document, newChoices: naming.created, warnings: warningsOf(issues), errors: errorsOf(issues) };
}

/** Definition entries with a `key`, by key (first wins), fieldsets flattened. */
function definitionEntries(definition: unknown[], pointer: string): Map<string, DefinitionEntry> {
  const map = new Map<string, DefinitionEntry>();
  const visit = (entries: unknown[], base: string): void => {
    entries.forEach((entry, i) => {
      const at = joinPointer(base, i);
      if (!isJsonObject(entry)) return;
      if (typeof entry.key === 'string' && !map.has(entry.key)) map.set(entry.key, { entry, pointer: at });
      if (Array.isArray(entry.items)) visit(entry.items, joinPointer(at, 'items'));
    });
  };
  visit(definition, pointer);
  return map;
}

/** v1 `required` (names that exist), then definition entries marked `required: true`. */
function requiredFields(schema: JsonObject, properties: JsonObject, definitions: Map<string, DefinitionEntry>, warn: (issue: SchemaIssue) => void): string[] {
  const required: string[] = [];
  const list = Array.isArray(schema.required) ? schema.required : [];
  list.forEach((name, i) => {
    if (typeof name === 'string' && Object.prototype.hasOwnProperty.call(properties, name)) {
      if (!required.includes(name)) required.push(name);
    } else {
      warn({
        code: 'migration_warning', category: 'validation', severity: 'warning', pointer: joinPointer('/schema/required', i),
        message: `required field ${JSON.stringify(name)} is not a property; it is dropped from \`required\``, hints: ['add the property, or remove the name'],
      });
    }
  });
  for (const [name, { entry }] of definitions) {
    if (entry.required === true && Object.prototype.hasOwnProperty.call(properties, name) && !required.includes(name)) required.push(name);
  }
  return required;
}
