/**
 * What one revision of a top-level field accepts, as far as a usage summary can tell: the JSON
 * kinds its `type` allows, and for scalar values (the field's own, or a list's elements) its
 * choices and constraints. Only the keywords the diff interprets are read; anything else
 * (`allOf`, `if`…) is not judged, so the lint never claims a break it cannot show.
 */
import type { DiffField } from '../diff/index.js';
import { canonicalJson } from '../diff/canonical.js';
import { linearRegExp, type RegExpLike } from '../regex-engine.js';
import type { ValueKind } from './types.js';

type Scalar = string | number | boolean;

export interface FieldAcceptance {
  /** Whether a top-level value of this kind is accepted (`integer` is a `number`). */
  kind(kind: ValueKind): boolean;
  /** Whether the field is a list of values: then `value` judges the elements. */
  list: boolean;
  /** Whether a scalar (or a list element) passes the choices; undefined checks are not judged. */
  choice(value: Scalar): boolean;
  /** Whether a scalar (or element) passes the element type and the constraints. */
  value(value: Scalar): boolean;
  /** The choices are known (no unresolved list) and present. */
  hasChoices: boolean;
  /** Every accepted string is at most this long (choices), or undefined. */
  longestChoice?: number;
  constraint(keyword: string): unknown;
}

/** `a|array<b|c>` → the top-level types and the element types (empty set: any). */
export function splitType(text: string): { top: Set<string>; items: Set<string> | null } {
  const match = /array<(.*)>/.exec(text);
  const items = match ? new Set(match[1]!.split('|').filter((t) => t !== '' && !t.includes('<'))) : null;
  const top = new Set((match ? text.replace(match[0], 'array') : text).split('|').filter((t) => t !== ''));
  return { top, items };
}

function typeAccepts(types: Set<string> | null, kind: ValueKind): boolean {
  if (!types || types.size === 0) return true;
  if (types.has(kind)) return true;
  return kind === 'integer' && types.has('number');
}

export function scalarKind(value: Scalar): ValueKind {
  return typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value === 'string' ? 'string' : 'boolean';
}

const patterns = new Map<string, RegExpLike | null>();
/** The project's linear engine (what event validation uses); null when the pattern cannot run. */
function compiled(source: string): RegExpLike | null {
  let re = patterns.get(source);
  if (re === undefined) {
    try { re = linearRegExp(source, 'u'); } catch { re = null; }
    if (patterns.size > 1000) patterns.clear();
    patterns.set(source, re);
  }
  return re;
}

interface Bounds {
  minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number; multipleOf?: number;
  minLength?: number; maxLength?: number; pattern?: RegExpLike | null;
}

/** The constraints read once per field (values are many: no lookups per value). */
function boundsOf(get: (k: string) => unknown): Bounds {
  const num = (k: string): number | undefined => { const x = get(k); return typeof x === 'number' ? x : undefined; };
  const pattern = get('pattern');
  return {
    minimum: num('minimum'), maximum: num('maximum'), exclusiveMinimum: num('exclusiveMinimum'), exclusiveMaximum: num('exclusiveMaximum'),
    multipleOf: num('multipleOf'), minLength: num('minLength'), maxLength: num('maxLength'),
    // a pattern the engine refuses is not judged (null)
    pattern: typeof pattern === 'string' ? compiled(pattern) : undefined,
  };
}

function constraintsPass(b: Bounds, v: Scalar): boolean {
  if (typeof v === 'number') {
    if (b.minimum !== undefined && v < b.minimum) return false;
    if (b.maximum !== undefined && v > b.maximum) return false;
    if (b.exclusiveMinimum !== undefined && v <= b.exclusiveMinimum) return false;
    if (b.exclusiveMaximum !== undefined && v >= b.exclusiveMaximum) return false;
    if (b.multipleOf !== undefined && b.multipleOf > 0) {
      const ratio = v / b.multipleOf;
      if (Math.abs(ratio - Math.round(ratio)) > 1e-9 * Math.max(1, Math.abs(ratio))) return false;
    }
  } else if (typeof v === 'string') {
    if (b.minLength !== undefined || b.maxLength !== undefined) {
      // JSON Schema counts code points, not UTF-16 units
      const length = [...v].length;
      if (b.minLength !== undefined && length < b.minLength) return false;
      if (b.maxLength !== undefined && length > b.maxLength) return false;
    }
    if (b.pattern && !b.pattern.test(v)) return false;
  }
  return true;
}

export function acceptanceOf(field: DiffField): FieldAcceptance {
  const { top, items } = splitType(field.type);
  const list = items !== null && top.has('array') && top.size === 1;
  const prefix = list ? 'items/' : '';
  const bounds = boundsOf((k) => field.constraints.get(prefix + k));
  const set = field.choices;
  const known = set !== undefined && set.unresolved.length === 0;
  let longestChoice: number | undefined;
  if (known) for (const c of set.values.values()) if (typeof c.value === 'string') longestChoice = Math.max(longestChoice ?? 0, c.value.length);
  const elementTypes = list ? items : top;
  return {
    list,
    hasChoices: known,
    longestChoice,
    kind: (kind) => typeAccepts(top, kind),
    choice: (v) => !known || set.values.has(canonicalJson(v)),
    value: (v) => typeAccepts(elementTypes, scalarKind(v)) && constraintsPass(bounds, v),
    constraint: (k) => field.constraints.get(k),
  };
}
