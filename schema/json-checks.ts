/**
 * All checks of the `json` member of a `{json, ui}` document. Every check runs, so one call
 * reports every problem; the Ajv compile at the end is a safety net for what the earlier checks
 * do not model and runs only on a document that passed them.
 */
import { createAjv, DRAFT_2020_12, type Ajv } from './ajv-factory.js';
import { looksLikeChoiceReference } from './choice-reference.js';
import { scanFields, type FieldInfo } from './field-kinds.js';
import { errorsOf, schemaIssue, type SchemaIssue } from './issues.js';
import { joinPointer, pointerSetIndex, type JsonObject } from './json-pointer.js';
import { keywordIssues } from './keyword-checks.js';
import { metaSchemaIssues } from './meta-schema.js';
import { expandedSubschemaCount, MAX_EXPANDED_SUBSCHEMAS } from './ref-expansion.js';
import { MAX_SCHEMA_DEPTH, tooDeepAt } from './schema-depth.js';
import { scanReferences, type ChoiceReferenceSite } from './references.js';
import { rewriteSchema } from './schema-walk.js';

export interface JsonMemberCheck {
  issues: SchemaIssue[];
  fields: Map<string, FieldInfo>;
  choiceReferences: ChoiceReferenceSite[];
}

export interface JsonCheckOptions {
  /**
   * Compile the schema with Ajv as a last check. `'auto'` (default) compiles only documents using
   * what the earlier checks do not model (a nested `$id`, `$dynamicRef`/`$dynamicAnchor`,
   * `$recursiveRef`, `$vocabulary`): compiling costs ~10 ms a document, the other checks < 1 ms,
   * and the CLI lints thousands of documents.
   */
  compile?: boolean | 'auto';
}

const NEEDS_COMPILE = /"\$(?:dynamicRef|dynamicAnchor|recursiveRef|recursiveAnchor|vocabulary)"/;

function needsCompile(json: JsonObject): boolean {
  const text = JSON.stringify(json);
  return NEEDS_COMPILE.test(text) || (text.match(/"\$id"/g)?.length ?? 0) > (typeof json.$id === 'string' ? 1 : 0);
}

export function checkJsonMember(json: JsonObject, base: string, options: JsonCheckOptions = {}): JsonMemberCheck {
  const deep = tooDeepAt(json, base);
  if (deep !== undefined) {
    // Every other check recurses through the schema: none runs on a document this deep.
    return {
      issues: [schemaIssue('schema_validation_error', {
        pointer: deep,
        message: `subschemas nest more than ${MAX_SCHEMA_DEPTH} levels deep here`,
        hints: ['flatten the schema: event forms nest a few levels (collections of objects), not dozens'],
      })],
      fields: new Map(),
      choiceReferences: [],
    };
  }
  const issues: SchemaIssue[] = [...versionIssues(json, base)];
  if (json.type !== 'object') {
    issues.push(schemaIssue('schema_validation_error', {
      pointer: joinPointer(base, 'type'),
      message: 'the event type schema must have `type: "object"`',
      hints: ['set `"type": "object"` at the root of `json`'],
    }));
  }
  const meta = metaSchemaIssues(json, base);
  issues.push(...meta);
  issues.push(...keywordIssues(json, base));
  const references = scanReferences(json, base);
  issues.push(...references.issues);
  issues.push(...expansionIssues(json, base));
  const errorPointers = pointerSetIndex(errorsOf(issues).map((i) => i.pointer));
  const hasErrorBelow = (pointer: string): boolean => errorPointers.atOrBelow(pointer);
  const fields = scanFields(json, base, hasErrorBelow);
  issues.push(...fields.issues);
  issues.push(...closedRootIssues(json, base));
  const compile = options.compile ?? 'auto';
  if (errorsOf(issues).length === 0 && (compile === true || (compile === 'auto' && needsCompile(json)))) {
    issues.push(...compileIssues(json, base));
  }
  return { issues, fields: fields.fields, choiceReferences: references.choiceReferences };
}

function expansionIssues(json: JsonObject, base: string): SchemaIssue[] {
  const expanded = expandedSubschemaCount(json);
  if (expanded <= MAX_EXPANDED_SUBSCHEMAS) return [];
  return [schemaIssue('schema_validation_error', {
    pointer: base,
    message: `the schema's references expand it to ${expanded > 1e15 ? 'more than 10^15' : expanded.toLocaleString('en')} subschemas (at most ${MAX_EXPANDED_SUBSCHEMAS.toLocaleString('en')})`,
    hints: ['a `$ref` repeated inside what it refers to multiplies the work of every validation: refer to each definition once per level'],
  })];
}

function versionIssues(json: JsonObject, base: string): SchemaIssue[] {
  const value = json.$schema;
  if (value === DRAFT_2020_12) return [];
  return [schemaIssue('schema_version_error', {
    pointer: joinPointer(base, '$schema'),
    message: value === undefined
      ? '`$schema` is missing'
      : `\`$schema\` is ${JSON.stringify(value)}, not the JSON Schema 2020-12 meta-schema URI`,
    hints: [`set "$schema": "${DRAFT_2020_12}"`],
  })];
}

function closedRootIssues(json: JsonObject, base: string): SchemaIssue[] {
  if (json.additionalProperties === false || json.unevaluatedProperties === false) return [];
  return [schemaIssue('schema_validation_error', {
    severity: 'warning', pointer: base,
    message: 'the schema accepts event details with undeclared fields',
    hints: ['add `"additionalProperties": false` (stored as `"unevaluatedProperties": false`)'],
  })];
}

let compiler: Ajv | undefined;

/** Choice references are opaque at validation time: they are removed before Ajv sees the schema. */
function compileIssues(json: JsonObject, base: string): SchemaIssue[] {
  compiler ??= createAjv();
  const opaque = rewriteSchema(json, base, (schema) => {
    if (typeof schema.$ref === 'string' && looksLikeChoiceReference(schema.$ref)) delete schema.$ref;
    return schema;
  }) as JsonObject;
  try {
    compiler.compile(opaque);
    return [];
  } catch (error) {
    return [schemaIssue('schema_validation_error', {
      pointer: base,
      message: `the schema does not compile: ${(error as Error).message}`,
      hints: ['check `$ref`, `$id` and `$anchor` values'],
    })];
  } finally {
    compiler.removeSchema(opaque);
  }
}
