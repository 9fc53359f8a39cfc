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

/** Hints suggest a keyword within this edit distance. */
const MAX_HINT_DISTANCE = 2;
const LONGEST_KEYWORD = Math.max(...[...KEYWORDS_2020_12].map((k) => k.length));
const LOWER_KEYWORDS = [...KEYWORDS_2020_12].map((keyword) => [keyword, keyword.toLowerCase()] as const);

/**
 * The known keyword closest to `word` (edit distance ≤ 2), for "did you mean" hints.
 *
 * Bounded work whatever `word` is: a word longer than the longest keyword plus 2 cannot be
 * within 2 edits and is not looked at; a keyword whose length differs by more than 2 is
 * skipped; the distance is computed in a band of width 5 and abandoned as soon as it exceeds
 * 2. At most ~60 keywords × 23 × 5 cells, so a 400 KB unknown key costs what a short one does.
 */
export function closestKeyword(word: string): string | undefined {
  if (word.length > LONGEST_KEYWORD + MAX_HINT_DISTANCE) return undefined;
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = MAX_HINT_DISTANCE + 1;
  for (const [keyword, lowerKeyword] of LOWER_KEYWORDS) {
    if (bestDistance === 0) break;
    const d = boundedEditDistance(lower, lowerKeyword, bestDistance - 1);
    if (d < bestDistance) {
      best = keyword;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transposition: `tpye` → 1) when
 * it is at most `max`, else `max + 1`. Only cells within `max` of the diagonal are computed
 * (the others are over `max` anyway), and a row whose every cell is over `max` ends the work:
 * O(max × min(|a|, |b|)) time, and nothing at all when the lengths differ by more than `max`.
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (max < 0) throw new RangeError('max must be at least 0');
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const over = max + 1;
  const width = b.length + 1;
  // Three rolling rows: two back (for transpositions), previous, current.
  let back = new Array<number>(width).fill(over);
  let prev = new Array<number>(width).fill(over);
  let row = new Array<number>(width).fill(over);
  for (let j = 0; j <= Math.min(b.length, max); j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - max);
    const to = Math.min(b.length, i + max);
    // Only the band is computed; the cells the next rows read just outside it must read `over`.
    row[0] = i <= max ? i : over;
    if (from - 1 >= 1) row[from - 1] = over;
    if (to + 1 <= b.length) row[to + 1] = over;
    let rowMin = row[0] as number;
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (back[j - 2] as number) + 1);
      row[j] = Math.min(d, over);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return over;
    [back, prev, row] = [prev, row, back];
  }
  return Math.min(prev[b.length] as number, over);
}
