/**
 * `$ref` checks for a stored `json` member. Three kinds of reference exist:
 * - choice references (`.../v2.0/schemas/choices.json?field=<name>`), resolved only when a
 *   document is pre-rendered, so at validation time they are checked for shape and placement,
 *   never loaded;
 * - local references (`#/$defs/x`, `#anchor`), which must resolve inside the document;
 * - anything else (another document), which the service cannot resolve: an error.
 */
import { checkChoiceReference, CHOICES_PATH_SUFFIX, looksLikeChoiceReference } from './choice-reference.js';
import { schemaIssue, type SchemaIssue } from './issues.js';
import { getAtPointer, joinPointer, parsePointer, isJsonObject, type JsonObject } from './json-pointer.js';
import { forEachSchema } from './schema-walk.js';

export interface ChoiceReferenceSite {
  /** Pointer of the schema holding the `$ref`. */
  pointer: string;
  url: string;
  fields: string[];
}

export interface ReferenceScan {
  issues: SchemaIssue[];
  choiceReferences: ChoiceReferenceSite[];
}

const CHOICE_SHAPE_HINT = `a choice reference looks like https://<site>/api${CHOICES_PATH_SUFFIX}?field=<choice list name>`;

export function scanReferences(json: JsonObject, base: string): ReferenceScan {
  const issues: SchemaIssue[] = [];
  const choiceReferences: ChoiceReferenceSite[] = [];
  const anchors = new Set<string>();
  let nestedIds = false;
  const local: Array<[string, string]> = [];
  forEachSchema(json, base, (schema, pointer) => {
    if (typeof schema.$anchor === 'string') anchors.add(schema.$anchor);
    if (typeof schema.$dynamicAnchor === 'string') anchors.add(schema.$dynamicAnchor);
    if (pointer !== base && typeof schema.$id === 'string') nestedIds = true;
    const ref = schema.$ref;
    if (typeof ref !== 'string') return;
    const at = joinPointer(pointer, '$ref');
    if (looksLikeChoiceReference(ref)) {
      const checked = checkChoiceReference(ref);
      if ('reason' in checked) {
        issues.push(schemaIssue('schema_validation_error', {
          pointer: at, message: `malformed choice reference: ${checked.reason}`, hints: [CHOICE_SHAPE_HINT],
        }));
        return;
      }
      choiceReferences.push({ pointer, url: ref, fields: checked.fields });
      issues.push(...placementIssues(schema, pointer, base));
    } else if (ref.startsWith('#')) {
      local.push([ref, at]);
    } else {
      issues.push(schemaIssue('unresolvable_reference', {
        pointer: at,
        message: `reference ${JSON.stringify(ref)} points outside the document and cannot be resolved`,
        hints: ['use a choice reference or a reference inside the document (`#/$defs/...`)', CHOICE_SHAPE_HINT],
      }));
    }
  });
  // NOTE: a nested `$id` changes the base URI of references below it; leave those to Ajv's compile.
  if (!nestedIds) {
    for (const [ref, at] of local) {
      if (!resolvesLocally(json, ref, anchors)) {
        issues.push(schemaIssue('unresolvable_reference', {
          pointer: at,
          message: `reference ${JSON.stringify(ref)} names nothing in this document`,
          hints: ['point it at an existing subschema, e.g. `#/$defs/<name>`, or define the missing `$defs` entry'],
        }));
      }
    }
  }
  return { issues, choiceReferences };
}

function resolvesLocally(json: JsonObject, ref: string, anchors: Set<string>): boolean {
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return false;
  }
  if (fragment === '') return true;
  if (!fragment.startsWith('/')) return anchors.has(fragment);
  const target = getAtPointer(json, fragment);
  return isJsonObject(target) || typeof target === 'boolean';
}

/** A choice `$ref` must be an entry of an `anyOf` (on the field, or on `items` for multi choice). */
function placementIssues(schema: JsonObject, pointer: string, base: string): SchemaIssue[] {
  const tokens = parsePointer(pointer.slice(base.length));
  const inAnyOf = tokens.length >= 2 && tokens.at(-2) === 'anyOf' && /^\d+$/.test(tokens.at(-1) ?? '');
  if (!inAnyOf) {
    return [schemaIssue('schema_validation_error', {
      pointer: joinPointer(pointer, '$ref'),
      message: 'a choice reference must be an entry of `anyOf`',
      hints: [
        'single choice: `{"type": "string", "anyOf": [{"$ref": "<choice URL>"}]}`',
        'multi choice: `{"type": "array", "items": {"anyOf": [{"$ref": "<choice URL>"}]}}`',
      ],
    })];
  }
  const siblings = Object.keys(schema).filter((k) => k !== '$ref');
  if (siblings.length === 0) return [];
  return [schemaIssue('schema_validation_error', {
    severity: 'warning', pointer,
    message: `keywords next to a choice reference (${siblings.join(', ')}) are dropped when choices are expanded`,
    hints: ['move them to the field schema'],
  })];
}
