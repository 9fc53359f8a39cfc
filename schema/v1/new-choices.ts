/**
 * Choice lists created by migration from inline `enum`/`enumNames` (or an inline `titleMap`).
 *
 * Naming (deterministic): the list is named after its property, reduced to the characters a
 * choice list name may hold (`[A-Za-z0-9_-]`, others become `_`, at most 40 characters). When
 * that name is taken — by a tag of the same document, a list created earlier in this migration,
 * or an existing list with other values — `_2`, `_3`, ... is appended. An existing list with
 * exactly the same values is reused instead of duplicated.
 *
 * Values must match `[a-z0-9_-]{1,100}` (CONTRACT §4); others are lower-cased and reduced the
 * same way, with a warning, since events stored under the old value will no longer match.
 * `ordernum` is 10, 20, 30, ... in the v1 order.
 */
import { CHOICE_FIELD_NAME } from '../choice-reference.js';
import { schemaIssue, type SchemaIssue } from '../issues.js';
import type { ChoiceEntry } from '../pre-render.js';
import { choiceListOf, type ChoiceLists } from './render.js';

export interface NewChoice {
  field: string;
  value: string;
  display: string;
  ordernum: number;
}

export interface ChoiceNaming {
  existing: ChoiceLists | undefined;
  /** List names already used by this document (tags, earlier new lists). */
  used: Set<string>;
  created: NewChoice[];
}

const VALUE = /^[a-z0-9_-]{1,100}$/;

function reduce(text: string, max: number, pattern: RegExp, fallback: string): string {
  const reduced = text.replace(pattern, '_').replace(/_+/g, '_').replace(/^_+|_+$/g, '').slice(0, max);
  return reduced === '' ? fallback : reduced;
}

/**
 * Creates (or reuses) a list for `entries` named after `property`; returns its name, or
 * undefined when the values are not all strings (the caller keeps the `enum` inline).
 */
export function createChoiceList(
  property: string, entries: Array<{ value: unknown; display?: unknown }>, naming: ChoiceNaming,
  pointer: string, warn: (issue: SchemaIssue) => void,
): string | undefined {
  if (entries.length === 0 || !entries.every((e) => typeof e.value === 'string')) return undefined;
  const values: ChoiceEntry[] = [];
  const renamed: string[] = [];
  for (const entry of entries) {
    const original = entry.value as string;
    let value = VALUE.test(original) ? original : reduce(original.toLowerCase(), 96, /[^a-z0-9_-]/g, 'value');
    for (let n = 2; values.some((v) => v.value === value); n++) value = `${value.slice(0, 96)}_${n}`;
    if (value !== original) renamed.push(`${JSON.stringify(original)} → ${JSON.stringify(value)}`);
    values.push({ value, display: typeof entry.display === 'string' ? entry.display : original });
  }
  const base = reduce(property, 36, /[^A-Za-z0-9_-]/g, 'choices');
  let name = base;
  for (let n = 2; ; n++) {
    const existing = naming.existing ? choiceListOf(naming.existing, name) : undefined;
    if (existing && !naming.used.has(name) && sameValues(existing, values)) {
      naming.used.add(name);
      return name;
    }
    if (!existing && !naming.used.has(name)) break;
    name = `${base}_${n}`;
  }
  if (!CHOICE_FIELD_NAME.test(name)) throw new Error(`derived choice list name is invalid: ${name}`);
  naming.used.add(name);
  values.forEach((v, i) => naming.created.push({ field: name, value: v.value, display: v.display, ordernum: (i + 1) * 10 }));
  if (renamed.length > 0) {
    warn(schemaIssue('migration_warning', {
      severity: 'warning', pointer,
      message: `choice values of \`${property}\` were changed to fit the choice value rule: ${renamed.join(', ')}`,
      hints: ['choice values are 1-100 of a-z, 0-9, _ and -; events stored with the old values need updating'],
    }));
  }
  return name;
}

function sameValues(a: readonly ChoiceEntry[], b: readonly ChoiceEntry[]): boolean {
  const left = new Set(a.map((e) => e.value));
  return left.size === b.length && b.every((e) => left.has(e.value));
}

/** Display names from `enumNames`: an array parallel to `enum`, or er-server's {value: name} map. */
export function displaysFor(values: readonly unknown[], enumNames: unknown): Array<{ value: unknown; display?: unknown }> {
  return values.map((value, i) => {
    if (Array.isArray(enumNames)) return { value, display: enumNames[i] };
    if (enumNames && typeof enumNames === 'object' && typeof value === 'string') {
      return { value, display: (enumNames as Record<string, unknown>)[value] };
    }
    return { value };
  });
}
