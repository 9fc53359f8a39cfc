/**
 * `renderV1`: the v1 document with its template tags replaced from choice lists, as
 * `GET /api/v1.0/activity/events/schema/eventtype/<value>` serves it. The rendering of each tag
 * kind follows er-server (das/utils/schema_utils.py), so v1 clients see what they always saw:
 * - `values` → `["v1", "v2"]`
 * - `names`  → `{"v1": "Display 1", "v2": "Display 2"}` (an object, not an array)
 * - `map`    → `[{"value": "v1", "name": "Display 1"}, ...]` (angular-schema-form `titleMap`)
 * A list with no entries renders empty (as er-server does for an unknown list), with an
 * `unresolvable_reference` warning. A document with a malformed tag or a syntax error does not
 * render (`document: null`): er-server fails on those too.
 */
import type { ChoiceEntry } from '../pre-render.js';
import { errorsOf, schemaIssue, type SchemaIssue } from '../issues.js';
import { setKey } from '../json-pointer.js';
import { cloneJson } from '../schema-walk.js';
import { parseV1, setAt, type V1Tag } from './parse.js';

export type ChoiceLists = ReadonlyMap<string, readonly ChoiceEntry[]> | Readonly<Record<string, readonly ChoiceEntry[]>>;

export interface RenderedV1 {
  document: Record<string, unknown> | null;
  issues: SchemaIssue[];
}

export function choiceListOf(lists: ChoiceLists, field: string): readonly ChoiceEntry[] | undefined {
  if (lists instanceof Map) return lists.get(field);
  const record = lists as Readonly<Record<string, readonly ChoiceEntry[]>>;
  return Object.prototype.hasOwnProperty.call(record, field) ? record[field] : undefined;
}

export function renderTag(tag: Pick<V1Tag, 'kind'>, entries: readonly ChoiceEntry[]): unknown {
  if (tag.kind === 'values') return entries.map((e) => e.value);
  if (tag.kind === 'map') return entries.map((e) => ({ value: e.value, name: e.display }));
  const names: Record<string, string> = {};
  for (const e of entries) setKey(names, e.value, e.display);
  return names;
}

export function renderV1(text: string, choices: ChoiceLists): RenderedV1 {
  const parsed = parseV1(text);
  const issues = [...parsed.issues];
  if (!parsed.document || errorsOf(issues).length > 0) return { document: null, issues };
  const document = cloneJson(parsed.document);
  const missing = new Set<string>();
  for (const tag of parsed.tags) {
    const entries = choiceListOf(choices, tag.field);
    if (!entries && !missing.has(tag.field)) {
      missing.add(tag.field);
      issues.push(schemaIssue('unresolvable_reference', {
        severity: 'warning', pointer: tag.pointer, location: { line: tag.line, column: tag.column },
        message: `choice list \`${tag.field}\` (${tag.lookup}) has no choices; its tags render empty`,
        hints: ['create the choices, or fix the list name in the tag'],
      }));
    }
    setAt(document, tag.pointer, renderTag(tag, entries ?? []));
  }
  return { document, issues };
}
