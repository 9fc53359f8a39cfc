/**
 * Validation of `event_details` data against a pre-rendered event type schema (`json` member,
 * choices expanded). Compiled validators are cached by a hash of the schema's content, so the
 * server compiles each event type version once however many events it validates.
 *
 * Issues use the code `event_details_invalid` (category `validation`); their pointers point
 * into the data (`/species`, `/items/0/count`), for a missing field at where it should be. At
 * most `MAX_DETAILS_ISSUES` are reported, then one `issues_truncated` entry counting the rest
 * (details-issues.ts).
 */
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv, type Ajv } from './ajv-factory.js';
import { toIssues } from './details-issues.js';
import { PATTERN_BUDGET, PatternBudgetExceeded, withPatternBudget } from './regex-engine.js';
import { schemaIssue, type IssueCode, type SchemaIssue } from './issues.js';
import { isJsonObject, type JsonObject } from './json-pointer.js';
import { rewriteSchema } from './schema-walk.js';
import { canonicalJson } from './unique-items.js';

export interface EventDetailsResult {
  valid: boolean;
  issues: SchemaIssue[];
}

export type EventDetailsValidator = (data: unknown) => EventDetailsResult;

/** The schema itself cannot be compiled (e.g. choice references were not pre-rendered). */
export class SchemaCompileError extends Error {
  constructor(readonly issues: SchemaIssue[]) {
    super(issues.map((i) => i.message).join('; '));
    this.name = 'SchemaCompileError';
  }
}

export interface EventDetailsValidatorCache {
  build(renderedJsonSchema: unknown): EventDetailsValidator;
  readonly size: number;
  clear(): void;
}

/** A cache of compiled validators (least recently used evicted beyond `maxEntries`, default 500). */
export function createEventDetailsValidatorCache(options: { maxEntries?: number } = {}): EventDetailsValidatorCache {
  const maxEntries = options.maxEntries ?? 500;
  const ajv = createAjv();
  const cache = new Map<string, { schema: JsonObject; validate: ValidateFunction }>();
  return {
    get size() { return cache.size; },
    clear() {
      for (const entry of cache.values()) ajv.removeSchema(entry.schema);
      cache.clear();
    },
    build(renderedJsonSchema) {
      const key = contentHash(renderedJsonSchema);
      let entry = cache.get(key);
      if (entry) {
        cache.delete(key);
      } else {
        entry = compile(ajv, renderedJsonSchema);
        while (cache.size >= maxEntries) {
          const [oldest, old] = cache.entries().next().value as [string, { schema: JsonObject }];
          ajv.removeSchema(old.schema);
          cache.delete(oldest);
        }
      }
      cache.set(key, entry);
      const validate = entry.validate;
      return (data) => {
        try {
          return withPatternBudget(() => validate(data)) ? { valid: true, issues: [] } : { valid: false, issues: toIssues(validate.errors ?? []) };
        } catch (error) {
          if (!(error instanceof PatternBudgetExceeded)) throw error;
          return { valid: false, issues: [schemaIssue('event_details_invalid', {
            message: `${error.message} (${PATTERN_BUDGET.toLocaleString('en')} character-steps); the values are too long for this event type's patterns`,
            hints: ['send shorter values, or ask an administrator to give the long fields `maxLength`'],
          })] };
        }
      };
    },
  };
}

let defaultCache: EventDetailsValidatorCache | undefined;

/** `build` of a process-wide cache; use `createEventDetailsValidatorCache` to own one. */
export function buildEventDetailsValidator(renderedJsonSchema: unknown): EventDetailsValidator {
  defaultCache ??= createEventDetailsValidatorCache();
  return defaultCache.build(renderedJsonSchema);
}

/**
 * The schema as Ajv is given it: `enum: []` (an empty choice list; valid 2020-12, which Ajv
 * refuses to compile) becomes the equivalent `not: {}`. The JSON-Schema-Test-Suite runs through
 * this too, so its exceptions describe exactly what event details get.
 */
export function prepareSchemaForAjv(schema: unknown): unknown {
  return rewriteSchema(schema, '', (node) => {
    if (!Array.isArray(node.enum) || node.enum.length > 0) return node;
    const { enum: _empty, ...rest } = node;
    return { ...rest, not: {} };
  });
}

function compile(ajv: Ajv, renderedJsonSchema: unknown): { schema: JsonObject; validate: ValidateFunction } {
  if (!isJsonObject(renderedJsonSchema)) {
    throw new SchemaCompileError([compileIssue('schema_structure_error', 'the event type schema must be an object')]);
  }
  const schema = prepareSchemaForAjv(renderedJsonSchema) as JsonObject;
  try {
    return { schema, validate: compileReplacingId(ajv, schema) };
  } catch (error) {
    ajv.removeSchema(schema);
    const message = (error as Error).message;
    const missingRef = (error as { missingRef?: string }).missingRef;
    throw new SchemaCompileError([missingRef !== undefined
      ? compileIssue('unresolvable_reference', `reference ${JSON.stringify(missingRef)} cannot be resolved; pre-render the schema first`)
      : compileIssue('schema_validation_error', `the event type schema does not compile: ${message}`)]);
  }
}

/**
 * NOTE: Ajv registers a root `$id`; two event types (or two versions of one) sharing an `$id`
 * would collide. Validators already compiled keep working, so the older registration is dropped.
 */
function compileReplacingId(ajv: Ajv, schema: JsonObject): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    if (typeof schema.$id !== 'string' || !/already exists/.test((error as Error).message)) throw error;
    ajv.removeSchema(schema.$id);
    return ajv.compile(schema);
  }
}

function compileIssue(code: IssueCode, message: string): SchemaIssue {
  return schemaIssue(code, { message, hints: ['validate and pre-render the event type schema first'] });
}

/** SHA-256 of canonical JSON (keys sorted), so key order does not defeat the cache. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
