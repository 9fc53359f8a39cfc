/**
 * The one Ajv configuration of the toolkit: JSON Schema 2020-12, every format of ajv-formats
 * asserted, all errors collected, `pattern`s matched by RE2 (linear time, regex-engine.ts),
 * `uniqueItems` checked by hashing (linear time, unique-items.ts). Event details are validated with it, and the
 * JSON-Schema-Test-Suite runs against it (test/schema/json-schema-test-suite.test.ts), so the
 * suite's known exceptions describe exactly what the server accepts.
 *
 * `strict: false` on purpose: the 2020-12 specification says unknown keywords are ignored when
 * validating data. Unknown keywords in *stored* documents are caught earlier, with pointers, by
 * the document validator (unknown-keywords.ts), not by Ajv's first-error-only strict mode.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Options } from 'ajv/dist/2020.js';
import { linearRegExp } from './regex-engine.js';
import { UNIQUE_ITEMS_KEYWORD } from './unique-items.js';

// NOTE: both packages are CommonJS; under NodeNext the default import is `module.exports`,
// which carries the real export again as `.default`.
type Ajv2020Class = typeof Ajv2020Module.default;
export type Ajv = InstanceType<Ajv2020Class>;
const Ajv2020: Ajv2020Class =
  (Ajv2020Module as unknown as { default?: Ajv2020Class }).default ?? (Ajv2020Module as unknown as Ajv2020Class);
type AddFormats = typeof addFormatsModule.default;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

export interface CreateAjvOptions {
  /** Extra schemas registered up front (by their `$id`), e.g. the test suite's remotes. */
  schemas?: object[];
}

export function createAjv(options: CreateAjvOptions = {}): Ajv {
  const ajvOptions: Options = {
    allErrors: true,
    strict: false,
    validateFormats: true,
    logger: false,
    // User patterns match in linear time (regex-engine.ts); V8's engine backtracks exponentially.
    code: { regExp: linearRegExp, process: appendErrorsInPlace },
  };
  const ajv = new Ajv2020(ajvOptions);
  addFormats(ajv);
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(UNIQUE_ITEMS_KEYWORD);
  for (const schema of options.schemas ?? []) ajv.addSchema(schema);
  return ajv;
}

/**
 * NOTE: with `allErrors`, Ajv's code for a `$ref` it does not inline (the meta-schema's
 * `$dynamicRef`s, recursive or large `$defs`) appends the callee's errors with
 * `vErrors = vErrors.concat(errors)`, copying every error so far at each call: quadratic in the
 * number of errors (a 260 KB document of wrong keywords took 3.5 s, 1 MB would take a minute).
 * The generated code is rewritten to append in place, which is linear. Tested by
 * test/schema/dos-bounds.test.ts, which fails if an Ajv upgrade changes the generated text.
 */
const CONCAT_ERRORS = /\bvErrors\.concat\(([\w$.]+)\)/g;
function appendErrorsInPlace(code: string): string {
  return code.replace(CONCAT_ERRORS, '((a, b) => { for (let i = 0; i < b.length; i++) a.push(b[i]); return a; })(vErrors, $1)');
}

/** Formats ajv-formats asserts; any other `format` value is only an annotation. */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  'date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference',
  'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer',
  'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float',
  'double', 'password', 'binary',
]);
