/**
 * Constraint keywords and whether a change narrows (fewer values accepted: data recorded under
 * the old revision may no longer validate) or widens them. A change whose direction cannot be
 * decided (a different `pattern`, a non-numeric bound) is `constraint.changed`, breaking.
 */
export const CONSTRAINT_KEYWORDS = [
  'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems',
  'minProperties', 'maxProperties', 'minContains', 'maxContains',
] as const;

/** Lower bounds narrow when they grow; upper bounds narrow when they shrink. */
const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);

/**
 * What an absent keyword means (JSON Schema's defaults): `minLength: 0`, `uniqueItems: false`...
 * are the same as leaving the keyword out, so they are compared as equal.
 */
const DEFAULTS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ['minLength', 0], ['minItems', 0], ['minProperties', 0], ['minContains', 1], ['uniqueItems', false],
]);
const baseOf = (keyword: string): string => (keyword.startsWith('items/') ? keyword.slice('items/'.length) : keyword);

/** The value `keyword` has in effect: its default when absent. */
export function effectiveConstraint(keyword: string, value: unknown): unknown {
  return value === undefined ? DEFAULTS.get(baseOf(keyword)) : value;
}

export type ConstraintDirection = 'narrowed' | 'widened' | 'changed';

/**
 * The direction of a change of `keyword` from `before` to `after` (either may be undefined:
 * absent; defaults are applied here). Only called when the effective values differ.
 */
export function constraintDirection(keyword: string, rawBefore: unknown, rawAfter: unknown): ConstraintDirection {
  const base = baseOf(keyword);
  const before = effectiveConstraint(keyword, rawBefore);
  const after = effectiveConstraint(keyword, rawAfter);
  if (base === 'uniqueItems') return after === true ? 'narrowed' : before === true ? 'widened' : 'changed';
  if (before === undefined) return 'narrowed';
  if (after === undefined) return 'widened';
  if (typeof before !== 'number' || typeof after !== 'number') return 'changed';
  if (LOWER.has(base)) return after > before ? 'narrowed' : 'widened';
  if (UPPER.has(base)) return after < before ? 'narrowed' : 'widened';
  if (base === 'multipleOf') return isMultipleOf(after, before) ? 'narrowed' : isMultipleOf(before, after) ? 'widened' : 'changed';
  return 'changed';
}

/**
 * Whether `value` is a whole multiple of `step` (then every multiple of `value` is one of
 * `step`). NOTE: a relative tolerance, because float division is inexact at any scale
 * (1 / 1e-10 is 10000000000.000002): an absolute one calls 1e-10 a multiple of 1.
 */
function isMultipleOf(value: number, step: number): boolean {
  if (!(value > 0) || !(step > 0) || !Number.isFinite(value) || !Number.isFinite(step)) return false;
  const ratio = value / step;
  const whole = Math.round(ratio);
  return whole >= 1 && Math.abs(ratio - whole) <= 1e-9 * ratio;
}
