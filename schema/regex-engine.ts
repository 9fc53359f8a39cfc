/**
 * The one regular-expression engine for patterns users write (`pattern`, `patternProperties`,
 * and so `propertyNames: {pattern}`): RE2, through the `re2` package, whose matching time is
 * linear in the input whatever the pattern. ECMA-262's backtracking engine takes exponential
 * time on patterns such as `^(a+)+$` (31 `a`s and a `!` held the process for 17 s); RE2 answers
 * the same question in microseconds.
 *
 * RE2 has no backreferences (`\1`, `\k<name>`) and no lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`):
 * they cannot be matched in linear time. A document using them is refused when it is written
 * (keyword-checks.ts, `schema_validation_error` with a hint), so every stored pattern compiles.
 *
 * Ajv is given the engine as `code.regExp` (ajv-factory.ts), so event details, the document
 * checks and the CLI's lint all match with it.
 */
import RE2 from 're2';

export interface RegExpLike {
  test(input: string): boolean;
}

/** Ajv's `code.regExp` option: `(source, flags)` to a matcher; `code` is used only by standalone code. */
export type RegExpEngine = ((source: string, flags: string) => RegExpLike) & { code: string };

export const linearRegExp: RegExpEngine = Object.assign(
  (source: string, flags: string): RegExpLike => new RE2(source, flags),
  { code: 'require("re2")' },
);

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
