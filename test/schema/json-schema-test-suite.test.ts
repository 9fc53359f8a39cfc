/**
 * The official JSON-Schema-Test-Suite (draft2020-12, optional/ and optional/format/ included)
 * against the toolkit's Ajv configuration, exactly as event details are validated
 * (`createAjv()` + `prepareSchemaForAjv`). The suite's remotes are registered under their
 * `http://localhost:1234/...` addresses, so nothing is fetched. Every test must pass except the
 * known exceptions of fixtures/schemas/json-schema-test-suite.exceptions.json, and every listed
 * exception must still fail, so the list stays honest.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createAjv, prepareSchemaForAjv, type Ajv } from '../../schema/index.js';
import { readFixtureJson, sharedCorpus } from './support.js';

interface SuiteGroup { description: string; schema: unknown; tests: Array<{ description: string; data: unknown; valid: boolean }> }
interface Exception { file: string; group: string; tests: string[] | '*'; reason: string }

const suite = sharedCorpus('corpus', 'json-schema-test-suite');
const { exceptions } = readFixtureJson('json-schema-test-suite.exceptions.json') as { exceptions: Exception[] };

function jsonFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => entry.isDirectory()
      ? jsonFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : entry.name.endsWith('.json') ? [`${prefix}${entry.name}`] : []);
}

/** Remotes in a fresh instance; those written for other drafts cannot be added to a 2020-12 Ajv and are left out. */
function withRemotes(ajv: Ajv, remotes: Array<[string, unknown]>): Ajv {
  for (const [url, schema] of remotes) {
    try {
      ajv.addSchema(schema as object, url);
    } catch {
      // e.g. draft2019-09/*.json: its $schema is unknown to this Ajv
    }
  }
  return ajv;
}

t.test('JSON-Schema-Test-Suite draft2020-12', { skip: suite.skip }, async (t) => {
  const remotesDir = path.join(suite.dir, 'remotes');
  const remotes = jsonFiles(remotesDir).map((file): [string, unknown] =>
    [`http://localhost:1234/${file}`, JSON.parse(readFileSync(path.join(remotesDir, file), 'utf8'))]);
  const testsDir = path.join(suite.dir, 'tests', 'draft2020-12');
  const expectedFailures = new Map<string, Exception>();
  const seenExceptions = new Set<Exception>();
  for (const e of exceptions) expectedFailures.set(`${e.file}\n${e.group}`, e);
  let passed = 0;
  let failedAsExpected = 0;
  const unexpected: string[] = [];
  const stale: string[] = [];
  for (const file of jsonFiles(testsDir)) {
    for (const group of JSON.parse(readFileSync(path.join(testsDir, file), 'utf8')) as SuiteGroup[]) {
      // NOTE: a fresh instance per group, since groups reuse `$id`s; remotes only when referenced.
      const ajv = JSON.stringify(group.schema).includes('localhost:1234') ? withRemotes(createAjv(), remotes) : createAjv();
      let validate: ((data: unknown) => boolean) | undefined;
      try {
        validate = ajv.compile(prepareSchemaForAjv(group.schema) as object);
      } catch {
        validate = undefined;
      }
      const exception = expectedFailures.get(`${file}\n${group.description}`);
      if (exception) seenExceptions.add(exception);
      for (const test of group.tests) {
        let ok = false;
        try {
          ok = validate !== undefined && validate(test.data) === test.valid;
        } catch {
          ok = false;
        }
        const listed = exception !== undefined && (exception.tests === '*' || exception.tests.includes(test.description));
        const name = `${file} | ${group.description} | ${test.description}`;
        if (ok && !listed) passed++;
        else if (!ok && listed) failedAsExpected++;
        else if (ok) stale.push(name);
        else unexpected.push(name);
      }
    }
  }
  const missing = exceptions.filter((e) => !seenExceptions.has(e)).map((e) => `${e.file} | ${e.group}`);
  t.same(unexpected, [], 'every test not listed as an exception passes');
  t.same(stale, [], 'every listed exception still fails');
  t.same(missing, [], 'every exception names an existing test group');
  t.ok(exceptions.every((e) => e.reason.length > 20), 'every exception says why');
  t.ok(passed > 1800, 'the suite was really run');
  t.comment(`JSON-Schema-Test-Suite draft2020-12: ${passed} passed, ${failedAsExpected} known exceptions (${exceptions.length} groups), ${unexpected.length} unexpected failures, ${stale.length} stale exceptions`);
});
