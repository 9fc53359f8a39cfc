/**
 * Keyword-level checks the 2020-12 meta-schema does not make, reported with pointers for every
 * subschema at once: unknown keywords (typos such as `tpye`, `minLenght`), legacy keywords,
 * invalid regular expressions (and those the linear-time engine refuses), unknown formats, keywords that cannot apply to the declared type,
 * and contradictory bounds. This replaces Ajv's strict mode, which stops at the first problem
 * and gives no location.
 */
import { KNOWN_FORMATS } from './ajv-factory.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { joinPointer, isJsonObject, type JsonObject } from './json-pointer.js';
import { closestKeyword, isExtensionKeyword, KEYWORDS_2020_12, LEGACY_KEYWORDS } from './keywords.js';
import { userPatternProblem } from './regex-engine.js';
import { forEachSchema } from './schema-walk.js';

const KEYWORDS_BY_TYPE: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems'],
  object: ['properties', 'required', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'minProperties', 'maxProperties', 'propertyNames', 'dependentRequired', 'dependentSchemas'],
};

const BOUNDS: Array<[string, string]> = [
  ['minimum', 'maximum'],
  ['minLength', 'maxLength'],
  ['minItems', 'maxItems'],
  ['minProperties', 'maxProperties'],
  ['minContains', 'maxContains'],
];

/** "Did you mean" suggestions computed per document; later unknown keywords get the plain hint. */
export const MAX_KEYWORD_SUGGESTIONS = 100;
/** Characters of an unknown keyword quoted in its message (the pointer carries it whole). */
const MAX_QUOTED_KEYWORD = 60;

/** Runs every keyword check over `json` (whose pointer is `base`, normally `/json`). */
export function keywordIssues(json: JsonObject, base: string): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const suggestions = { left: MAX_KEYWORD_SUGGESTIONS };
  forEachSchema(json, base, (schema, pointer) => {
    for (const keyword of Object.keys(schema)) checkKeyword(keyword, pointer, issues, suggestions);
    checkRegexes(schema, pointer, issues);
    checkFormat(schema, pointer, issues);
    checkTypeApplicability(schema, pointer, issues);
    checkBounds(schema, pointer, issues);
  });
  return issues;
}

function checkKeyword(keyword: string, pointer: string, issues: SchemaIssue[], suggestions: { left: number }): void {
  if (KEYWORDS_2020_12.has(keyword) || isExtensionKeyword(keyword)) return;
  const at = joinPointer(pointer, keyword);
  const legacy = LEGACY_KEYWORDS.get(keyword);
  if (legacy) {
    issues.push(schemaIssue('schema_validation_error', {
      severity: 'warning', pointer: at,
      message: `\`${keyword}\` is an earlier-draft keyword kept only for compatibility`,
      hints: [legacy],
    }));
    return;
  }
  const suggestion = suggestions.left-- > 0 ? closestKeyword(keyword) : undefined;
  const quoted = keyword.length > MAX_QUOTED_KEYWORD ? `${keyword.slice(0, MAX_QUOTED_KEYWORD)}...` : keyword;
  issues.push(schemaIssue('schema_validation_error', {
    pointer: at,
    message: `unknown keyword \`${quoted}\``,
    hints: [
      suggestion ? `did you mean \`${suggestion}\`?` : 'remove it, or use a JSON Schema 2020-12 keyword',
      'vendor extensions must start with `x-`',
    ],
  }));
}

function checkRegexes(schema: JsonObject, pointer: string, issues: SchemaIssue[]): void {
  const check = (source: string, at: string): void => {
    const problem = userPatternProblem(source);
    if (!problem) return;
    issues.push(schemaIssue('schema_validation_error', {
      pointer: at,
      message: `regular expression ${JSON.stringify(source.length > 200 ? `${source.slice(0, 200)}...` : source)} cannot be used: ${problem.message}`,
      hints: [problem.hint],
    }));
  };
  if (typeof schema.pattern === 'string') check(schema.pattern, joinPointer(pointer, 'pattern'));
  if (isJsonObject(schema.patternProperties)) {
    for (const key of Object.keys(schema.patternProperties)) check(key, joinPointer(pointer, 'patternProperties', key));
  }
}

function checkFormat(schema: JsonObject, pointer: string, issues: SchemaIssue[]): void {
  if (typeof schema.format !== 'string' || KNOWN_FORMATS.has(schema.format)) return;
  issues.push(schemaIssue('schema_validation_error', {
    severity: 'warning', pointer: joinPointer(pointer, 'format'),
    message: `format \`${schema.format}\` is not checked; it is only an annotation`,
    hints: ['checked formats include date, time, date-time, email, uri, uuid'],
  }));
}

function declaredTypes(schema: JsonObject): Set<string> | undefined {
  const raw = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  if (!raw) return undefined;
  const types = new Set(raw.filter((t): t is string => typeof t === 'string'));
  if (types.has('integer')) types.add('number');
  return types;
}

function checkTypeApplicability(schema: JsonObject, pointer: string, issues: SchemaIssue[]): void {
  const types = declaredTypes(schema);
  if (!types) return;
  for (const [type, keywords] of Object.entries(KEYWORDS_BY_TYPE)) {
    if (types.has(type)) continue;
    for (const keyword of keywords) {
      if (!(keyword in schema)) continue;
      issues.push(schemaIssue('schema_validation_error', {
        severity: 'warning', pointer: joinPointer(pointer, keyword),
        message: `\`${keyword}\` applies to ${type} values and has no effect on type ${[...types].join('/')}`,
        hints: [`remove \`${keyword}\`, or change \`type\``],
      }));
    }
  }
}

function checkBounds(schema: JsonObject, pointer: string, issues: SchemaIssue[]): void {
  for (const [low, high] of BOUNDS) {
    const min = schema[low];
    const max = schema[high];
    if (typeof min === 'number' && typeof max === 'number' && min > max) {
      issues.push(schemaIssue('schema_validation_error', {
        pointer: joinPointer(pointer, low),
        message: `\`${low}\` (${min}) is greater than \`${high}\` (${max}); no value can satisfy both`,
        hints: [`make \`${low}\` less than or equal to \`${high}\``],
      }));
    }
  }
}
