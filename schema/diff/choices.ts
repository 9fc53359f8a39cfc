/**
 * The choices of a field: inline lists (`enum`, `const`, `anyOf`/`oneOf` of `const`/`enum`
 * entries, with `x-enumExtra` or entry `title`s as display) and `choices.json` references,
 * whose values come from a `ChoiceLookup` the caller passes (the mirror's choices, or lists
 * fetched beforehand with `resolveChoiceLookup`).
 */
import { parseChoiceReference } from '../choice-reference.js';
import { isJsonObject, type JsonObject } from '../json-pointer.js';
import type { ChoiceResolver } from '../pre-render.js';
import type { ChoicesByField } from '../choice-records.js';
import { forEachSchema } from '../schema-walk.js';
import { canonicalJson, canonicalRest } from './canonical.js';
import type { ChoiceLookup } from './types.js';

export interface ChoiceValue {
  value: unknown;
  display?: string;
  /** An inline entry's `description`. */
  description?: string;
  /** Canonical JSON of an inline entry's other keywords ('' when none). */
  other: string;
  /** Only a referenced list offers it (no inline keyword holds it). */
  fromList: boolean;
}

export interface ChoiceSet {
  /** Keyed by the canonical JSON of the value. */
  values: Map<string, ChoiceValue>;
  /** Referenced choice list names, in order of appearance. */
  lists: string[];
  /** Lists the lookup could not answer: the values are then incomplete. */
  unresolved: string[];
  /** The keywords that held the choices (not compared as "other schema"). */
  keywords: string[];
}

/** The values one keyword allows; `open` when an unresolved list may allow any other. */
interface KeywordValues {
  values: Map<string, ChoiceValue>;
  open: boolean;
}

const ENTRY_KEYWORDS = new Set(['const', 'enum', 'title', 'description', '$ref']);

/** Whether an `anyOf`/`oneOf` is a list of choices rather than alternatives of other kinds. */
function choiceEntries(list: unknown): JsonObject[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const ok = list.every((e) => isJsonObject(e) && (Object.hasOwn(e, 'const') || Array.isArray(e.enum) || (typeof e.$ref === 'string' && parseChoiceReference(e.$ref))));
  return ok ? (list as JsonObject[]) : undefined;
}

/**
 * JSON Schema applies `enum`, `const`, `anyOf` and `oneOf` together: a value must satisfy each,
 * so the choices are the intersection of each keyword's values (a keyword holding an unresolved
 * list may allow any value, and filters nothing).
 */
export function choiceSetOf(node: JsonObject, pointer: string, lookup: ChoiceLookup | undefined): ChoiceSet | undefined {
  const has = (key: string): boolean => Object.hasOwn(node, key);
  if (!has('enum') && !has('const') && !has('anyOf') && !has('oneOf')) return undefined;
  const set: ChoiceSet = { values: new Map(), lists: [], unresolved: [], keywords: [] };
  const extra = isJsonObject(node['x-enumExtra']) ? node['x-enumExtra'] : {};
  const extraDisplay = (value: unknown): string | undefined => {
    const entry = typeof value === 'string' && Object.hasOwn(extra, value) ? extra[value] : undefined;
    return isJsonObject(entry) && typeof entry.display === 'string' ? entry.display : undefined;
  };
  const groups: KeywordValues[] = [];
  const group = (): KeywordValues => {
    const g: KeywordValues = { values: new Map(), open: false };
    groups.push(g);
    return g;
  };
  const add = (g: KeywordValues, value: unknown, fromList: boolean, entry?: JsonObject, display?: unknown): void => {
    const key = canonicalJson(value, pointer);
    if (g.values.has(key)) return;
    const shown = typeof display === 'string' ? display : extraDisplay(value);
    const description = entry && typeof entry.description === 'string' ? entry.description : undefined;
    const other = entry ? canonicalRest(entry, (k) => ENTRY_KEYWORDS.has(k), pointer) : '';
    g.values.set(key, { value, ...(shown !== undefined ? { display: shown } : {}), ...(description !== undefined ? { description } : {}), other, fromList });
  };
  if (Array.isArray(node.enum)) {
    set.keywords.push('enum');
    const g = group();
    for (const v of node.enum) add(g, v, false);
  }
  if (has('const')) {
    // NOTE: the node's `title` is the field's title, not a display of the value
    set.keywords.push('const');
    add(group(), node.const, false);
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const entries = choiceEntries(node[keyword]);
    if (!entries) continue;
    set.keywords.push(keyword);
    const g = group();
    const lists: string[] = [];
    for (const entry of entries) {
      if (Object.hasOwn(entry, 'const')) add(g, entry.const, false, entry, entry.title);
      if (Array.isArray(entry.enum)) for (const v of entry.enum) add(g, v, false);
      const reference = typeof entry.$ref === 'string' ? parseChoiceReference(entry.$ref) : null;
      for (const list of reference?.fields ?? []) if (!lists.includes(list)) lists.push(list);
    }
    // lists after the inline entries: a value offered both ways counts as inline
    for (const list of lists) {
      if (!set.lists.includes(list)) set.lists.push(list);
      const listed = lookup?.(list);
      if (!listed) {
        g.open = true;
        if (!set.unresolved.includes(list)) set.unresolved.push(list);
        continue;
      }
      for (const entry of listed) add(g, entry.value, true, undefined, entry.display);
    }
  }
  if (set.keywords.length === 0) return undefined;
  set.keywords.push('x-enumExtra');
  for (const g of groups) {
    for (const [key, choice] of g.values) {
      if (set.values.has(key) || !groups.every((o) => o.open || o.values.has(key))) continue;
      // the first keyword that shows the value gives its display; inline anywhere wins over a list
      const holders = groups.map((o) => o.values.get(key)).filter((v): v is ChoiceValue => v !== undefined);
      const display = holders.find((v) => v.display !== undefined)?.display;
      const description = holders.find((v) => v.description !== undefined)?.description;
      set.values.set(key, {
        value: choice.value, ...(display !== undefined ? { display } : {}), ...(description !== undefined ? { description } : {}),
        other: holders.find((v) => v.other !== '')?.other ?? '', fromList: holders.every((v) => v.fromList),
      });
    }
  }
  return set;
}

/** A lookup over lists already in memory (the mirror's choices, a fixture), e.g. `groupChoices(records)`. */
export function choiceLookupFrom(choices: ChoicesByField): ChoiceLookup {
  return (list) => choices.get(list) ?? null;
}

/**
 * Resolves, once each, every choice list referenced by the documents through an (asynchronous)
 * `ChoiceResolver`, and answers them synchronously for the diff. A resolver that throws or
 * answers something other than a list leaves that list unresolved.
 */
export async function resolveChoiceLookup(documents: readonly unknown[], resolver: ChoiceResolver): Promise<ChoiceLookup> {
  const requests = new Map<string, string>();
  for (const doc of documents) forEachChoiceReference(doc, (field, ref) => { if (!requests.has(field)) requests.set(field, ref); });
  const resolved = new Map<string, Array<{ value: string; display: string }>>();
  for (const [field, url] of requests) {
    try {
      const entries = await resolver({ url, field });
      if (Array.isArray(entries)) resolved.set(field, entries.filter((e) => isJsonObject(e) && typeof e.value === 'string').map((e) => ({ value: e.value, display: String(e.display) })));
    } catch {
      // unresolved: the diff compares the list names only
    }
  }
  return (list) => resolved.get(list) ?? null;
}

/** Every choice list a `{json, ui}` document's `anyOf`/`oneOf` `choices.json` references name, with the reference, in order of appearance. */
export function forEachChoiceReference(document: unknown, visit: (field: string, ref: string) => void): void {
  const json = isJsonObject(document) ? document.json : undefined;
  forEachSchema(json, '/json', (schema) => {
    for (const keyword of ['anyOf', 'oneOf']) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      for (const entry of list) {
        if (!isJsonObject(entry) || typeof entry.$ref !== 'string') continue;
        for (const field of parseChoiceReference(entry.$ref)?.fields ?? []) visit(field, entry.$ref);
      }
    }
  });
}
