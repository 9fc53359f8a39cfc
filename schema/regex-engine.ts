/**
 * The one regular-expression engine for patterns users write (`pattern`, `patternProperties`,
 * and so `propertyNames: {pattern}`): RE2, through the `re2` package, whose matching time is
 * linear in the input whatever the pattern. ECMA-262's backtracking engine takes exponential
 * time on patterns such as `^(a+)+$` (31 `a`s and a `!` held the process for 17 s); RE2 answers
 * the same question in microseconds.
 *
 * Linear is not enough when the pattern is huge: the cost per character grows with the size of
 * RE2's program, so patterns are also capped in length and in program size (regex-size.ts).
 *
 * RE2 has no backreferences (`\1`, `\k<name>`) and no lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`):
 * they cannot be matched in linear time. A document using them is refused when it is written
 * (keyword-checks.ts, `schema_validation_error` with a hint), so every stored pattern compiles.
 *
 * Ajv is given the engine as `code.regExp` (ajv-factory.ts), so event details, the document
 * checks and the CLI's lint all match with it.
 */
import RE2 from 're2';
import { regexProgramSize } from './regex-size.js';

/** Longest user pattern (characters). Real field patterns are tens of characters. */
export const MAX_PATTERN_LENGTH = 1000;
/**
 * Largest program (regex-size.ts) a user pattern may compile to. RE2 is linear in the input, but
 * when its DFA gives up (patterns such as `(a|b)*a(a|b){n}` need 2^n DFA states) each character
 * costs about a step per program instruction: measured here ~0.6 s per MB of input at 200, 2.6 s
 * at 400, 12 s per 100 KB at 2,500. Patterns that keep to the DFA (most real ones) cost about
 * 1 ms per MB whatever their size. `^[a-z0-9_-]{1,40}$` is 43, `^.{0,190}$` 193.
 */
export const MAX_PATTERN_PROGRAM = 200;

export interface RegExpLike {
  test(input: string): boolean;
  /** NOTE: Ajv keys its cache of compiled patterns by this: it must name the pattern. */
  toString(): string;
}

/** Ajv's `code.regExp` option: `(source, flags)` to a matcher; `code` is used only by standalone code. */
export type RegExpEngine = ((source: string, flags: string) => RegExpLike) & { code: string };

export const linearRegExp: RegExpEngine = Object.assign(
  (source: string, flags: string): RegExpLike => {
    // A stored pattern from before these limits must not run either: refusing here makes the
    // schema fail to compile, which callers report (events: a 400 naming the type).
    const problem = sizeProblem(source);
    if (problem) throw new Error(`pattern ${JSON.stringify(source.slice(0, 100))} is refused: ${problem}`);
    const re = new RE2(source, flags);
    const steps = Math.max(1, regexProgramSize(source));
    return {
      test(input: string): boolean {
        if (budget) {
          budget.left -= input.length * steps;
          if (budget.left < 0) throw new PatternBudgetExceeded();
        }
        return re.test(input);
      },
      toString: () => re.toString(),
    };
  },
  { code: 'require("re2")' },
);

/**
 * Pattern work allowed for one validation of data (`withPatternBudget`), in characters times
 * program size: each pattern is capped, but one value may meet many patterns (`allOf`, `$ref`s
 * repeating a subschema). 10^8 is about half a second at worst (DFA-defeating patterns), and
 * 25 MB of input against 40-step patterns such as `^[a-z0-9_-]{1,40}$` (bodies are 1 MB).
 */
export const PATTERN_BUDGET = 100_000_000;

/** Thrown out of a validation that would do more pattern work than its budget. */
export class PatternBudgetExceeded extends Error {
  constructor() {
    super('the data needs more regular-expression work than one validation may do');
    this.name = 'PatternBudgetExceeded';
  }
}

let budget: { left: number } | undefined;

/**
 * Runs a validation with a pattern budget. NOTE: validation is synchronous, so one module-level
 * budget serves every caller in turn; outside it (document checks, the test suite) patterns are
 * not counted.
 */
export function withPatternBudget<T>(work: () => T, steps = PATTERN_BUDGET): T {
  const outer = budget;
  budget = { left: steps };
  try {
    return work();
  } finally {
    budget = outer;
  }
}

function sizeProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN_LENGTH) return `it is longer than ${MAX_PATTERN_LENGTH} characters`;
  const size = regexProgramSize(source);
  if (size > MAX_PATTERN_PROGRAM) return `it expands to about ${size} matching steps per character (at most ${MAX_PATTERN_PROGRAM})`;
  return undefined;
}

/** Constructs RE2 refuses, named for the hint (the first one found in the source). */
const UNSUPPORTED: Array<[RegExp, string]> = [
  [/\(\?<?[=!]/, 'lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`)'],
  [/\\(?:[1-9]|k<)/, 'backreferences (`\\1`, `\\k<name>`)'],
];

/**
 * Why a user pattern cannot be used, or undefined when it can: it must be a valid ECMA-262
 * regular expression with the `u` flag (what JSON Schema specifies) and one RE2 runs.
 */
export function userPatternProblem(source: string): { message: string; hint: string } | undefined {
  try {
    new RegExp(source, 'u');
  } catch (error) {
    return { message: (error as Error).message, hint: 'patterns are ECMA-262 regular expressions with the `u` flag' };
  }
  const tooBig = sizeProblem(source);
  if (tooBig) {
    return {
      message: tooBig,
      hint: 'counted repetitions are expanded into copies: use smaller counts, or `*`/`+` with `maxLength` (e.g. `^[a-z]+$` and `maxLength: 400` rather than `^(?:[a-z]{1,40}){1,40}$`)',
    };
  }
  try {
    new RE2(source, 'u');
    return undefined;
  } catch (error) {
    const construct = UNSUPPORTED.find(([test]) => test.test(source))?.[1];
    return {
      message: construct ? `it uses ${construct}, which cannot be matched in linear time` : `the linear-time engine (RE2) refuses it: ${(error as Error).message}`,
      hint: 'patterns are matched by RE2 in linear time: rewrite without backreferences or lookaround (e.g. `^(?!x)` as `^([^x]|$)`)',
    };
  }
}
