/**
 * Validation of a `json` member against the JSON Schema 2020-12 meta-schema. The meta-schema
 * validator is compiled once per process (lazily) and reused: the CLI lints thousands of
 * documents. Ajv's raw errors are folded into one issue per location, without the
 * `anyOf`/`$dynamicRef` wrapper noise.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv, DRAFT_2020_12 } from './ajv-factory.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { parsePointer, pointerSetIndex } from './json-pointer.js';

let metaValidator: ValidateFunction | undefined;

function getMetaValidator(): ValidateFunction {
  if (!metaValidator) {
    const validator = createAjv().getSchema(DRAFT_2020_12);
    if (!validator) throw new Error('ajv has no 2020-12 meta-schema');
    metaValidator = validator;
  }
  return metaValidator;
}

const WRAPPER_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'if', '$dynamicRef', '$ref', 'not']);

/** Meta-schema problems of `json`; pointers are prefixed with `base` (normally `/json`). */
export function metaSchemaIssues(json: unknown, base: string): SchemaIssue[] {
  const validate = getMetaValidator();
  if (validate(json)) return [];
  const byPath = new Map<string, ErrorObject[]>();
  for (const error of validate.errors ?? []) {
    const list = byPath.get(error.instancePath) ?? [];
    list.push(error);
    byPath.set(error.instancePath, list);
  }
  const issues: SchemaIssue[] = [];
  const paths = pointerSetIndex(byPath.keys());
  for (const [path, errors] of byPath) {
    const specific = errors.filter((e) => !WRAPPER_KEYWORDS.has(e.keyword));
    const shown = specific.length > 0 ? specific : errors;
    // A wrapper error alone at a path whose children have errors only repeats them.
    if (specific.length === 0 && paths.below(path)) continue;
    const name = parsePointer(path).at(-1);
    const typeName = name === 'type' && shown.some((e) => e.keyword === 'enum');
    // NOTE: `type` is "a simple type name, or an array of them": Ajv reports both branches.
    const messages = typeName ? ['must be a JSON type name or an array of them'] : [...new Set(shown.map((e) => e.message ?? e.keyword))];
    issues.push(schemaIssue('schema_validation_error', {
      pointer: base + path,
      message: `${name === undefined ? 'the schema' : `\`${name}\``} ${messages.join(', or ')} (JSON Schema 2020-12 meta-schema)`,
      hints: hintsFor(typeName ? shown.filter((e) => e.keyword === 'enum') : shown, name),
    }));
  }
  return issues;
}

function hintsFor(errors: ErrorObject[], name: string | undefined): string[] {
  const hints: string[] = [];
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      hints.push(`use one of: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`);
    } else if (error.keyword === 'type') {
      hints.push(`the value must be of JSON type ${String(params.type)}`);
    } else if (error.keyword === 'minimum' || error.keyword === 'exclusiveMinimum') {
      hints.push(`use a number ${String(params.comparison)} ${String(params.limit)}`);
    } else if (error.keyword === 'format') {
      hints.push(`the value must be a valid ${String(params.format)}`);
    } else if (error.keyword === 'uniqueItems') {
      hints.push('remove the duplicate entries');
    } else if (error.keyword === 'minItems') {
      hints.push(`give at least ${String(params.limit)} entries`);
    }
  }
  if (hints.length === 0) {
    hints.push(`check \`${name ?? 'the schema'}\` against the JSON Schema 2020-12 specification`);
  }
  return [...new Set(hints)];
}
