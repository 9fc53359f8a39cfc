/**
 * The schema toolkit's algorithms as they were before issue 13, kept only as the baseline of
 * bench/schema-dos.ts ("before" columns, measured in the same run as "now"). Not used anywhere
 * else. The message text is dropped: the cost was in finding each error's branch.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { KEYWORDS_2020_12 } from '../../schema/keywords.js';

const BRANCH_KEYWORDS = new Set(['anyOf', 'oneOf']);

/** The old `toIssues`: for every error, a scan of every branch, and per branch a filter of every error (cubic). */
export function legacyToIssues(errors: ErrorObject[]): Array<{ pointer: string; inner: number }> {
  const issues: Array<{ pointer: string; inner: number }> = [];
  const branches = errors.filter((e) => BRANCH_KEYWORDS.has(e.keyword));
  const inBranch = (e: ErrorObject): ErrorObject | undefined =>
    branches.find((b) => b !== e && e.instancePath === b.instancePath && e.schemaPath.startsWith(b.schemaPath + '/'));
  for (const error of errors) {
    if (inBranch(error)) continue;
    if (BRANCH_KEYWORDS.has(error.keyword)) {
      issues.push({ pointer: error.instancePath, inner: errors.filter((e) => inBranch(e) === error).length });
      continue;
    }
    issues.push({ pointer: error.instancePath, inner: 0 });
  }
  return issues;
}

/** The old `closestKeyword`: a full distance matrix against every keyword, whatever the word's length. */
export function legacyClosestKeyword(word: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const keyword of KEYWORDS_2020_12) {
    const d = legacyEditDistance(word.toLowerCase(), keyword.toLowerCase());
    if (d < bestDistance) {
      best = keyword;
      bestDistance = d;
    }
  }
  return best;
}

function legacyEditDistance(a: string, b: string): number {
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
