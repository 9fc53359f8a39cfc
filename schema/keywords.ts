/**
 * The JSON Schema 2020-12 keyword vocabulary, grouped by where subschemas live. The document
 * validator, the normaliser, the pre-renderer and the v1 converter all walk schemas through this
 * one table, so they agree on what is a subschema.
 */

/** Keywords whose value is one subschema. */
export const SINGLE_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'items', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not',
  'unevaluatedItems', 'unevaluatedProperties', 'contentSchema',
  // draft-04..2019-09, still walked so that old documents are understood
  'additionalItems',
]);

/** Keywords whose value is an object of subschemas. */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties', 'patternProperties', 'dependentSchemas', '$defs',
  // legacy spellings; `dependencies` values may also be arrays of names (skipped by the walker)
  'definitions', 'dependencies',
]);

/** Keywords whose value is an array of subschemas (`items` as an array is the draft-04 form). */
export const SCHEMA_ARRAY_KEYWORDS: ReadonlySet<string> = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);

/** Every keyword defined by the 2020-12 vocabularies (core, applicator, unevaluated, validation,
 * meta-data, format-annotation, content). */
export const KEYWORDS_2020_12: ReadonlySet<string> = new Set([
  '$schema', '$id', '$ref', '$anchor', '$dynamicRef', '$dynamicAnchor', '$vocabulary', '$comment', '$defs',
  'prefixItems', 'items', 'contains', 'additionalProperties', 'properties', 'patternProperties',
  'dependentSchemas', 'propertyNames', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not',
  'unevaluatedItems', 'unevaluatedProperties',
  'type', 'const', 'enum', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains',
  'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired',
  'title', 'description', 'default', 'deprecated', 'readOnly', 'writeOnly', 'examples',
  'format', 'contentEncoding', 'contentMediaType', 'contentSchema',
]);

/** Accepted for compatibility (the 2020-12 meta-schema still lists them), with a warning. */
export const LEGACY_KEYWORDS: ReadonlyMap<string, string> = new Map([
  ['definitions', 'use `$defs`'],
  ['dependencies', 'use `dependentRequired` (arrays) or `dependentSchemas` (schemas)'],
  ['$recursiveRef', 'use `$dynamicRef`'],
  ['$recursiveAnchor', 'use `$dynamicAnchor`'],
]);

/** Vendor extensions such as `x-enumExtra` (written by the `enum` pre-render shape). */
export function isExtensionKeyword(keyword: string): boolean {
  return keyword.startsWith('x-');
}

/** The known keyword closest to `word` (edit distance ≤ 2), for "did you mean" hints. */
export function closestKeyword(word: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const keyword of KEYWORDS_2020_12) {
    const d = editDistance(word.toLowerCase(), keyword.toLowerCase());
    if (d < bestDistance) {
      best = keyword;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal-string-alignment distance (Levenshtein plus adjacent transposition: `tpye` → 1). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [];
    for (let j = 0; j <= b.length; j++) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const prev = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}
