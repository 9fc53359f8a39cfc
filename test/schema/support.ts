/**
 * Paths and helpers for the schema tests. Compiled, this sits in dist/test/schema, so the
 * repository root is three levels up. The shared corpus lives outside the project (FIELDOPS_SHARED_DIR, default
 * `<repo>/../shared`); tests that need it skip with a message when it is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { schemaIssue, type SchemaIssue } from '../../schema/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../..');
export const fixturesDir = path.join(repoRoot, 'fixtures', 'schemas');

export function readFixture(name: string): string {
  return readFileSync(path.join(fixturesDir, name), 'utf8');
}

export function readFixtureJson(name: string): unknown {
  return JSON.parse(readFixture(name));
}

export interface SharedCorpus {
  dir: string;
  /** A skip reason when the directory is absent, else false. */
  skip: string | false;
}

export function sharedCorpus(...segments: string[]): SharedCorpus {
  const shared = process.env.FIELDOPS_SHARED_DIR ?? path.resolve(repoRoot, '../shared');
  const dir = path.join(shared, ...segments);
  return { dir, skip: existsSync(dir) ? false : `shared corpus not found at ${dir} (set FIELDOPS_SHARED_DIR)` };
}

/** `code pointer` lines of the errors, or of all issues, for compact exact comparisons. */
export function codes(issues: readonly SchemaIssue[], which: 'errors' | 'all' = 'errors'): string[] {
  return issues.filter((i) => which === 'all' || i.severity === 'error').map((i) => `${i.code} ${i.pointer}`);
}

// NOTE: `npx tap dist/test/schema/` runs every file of the folder, this one included; run as a
// test, it checks its own helpers (imported by the other tests, it does nothing).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  t.test('helpers', async (t) => {
    t.ok(existsSync(path.join(fixturesDir, 'every-field-kind.v2.json')), 'fixtures found from dist/');
    const saved = process.env.FIELDOPS_SHARED_DIR;
    process.env.FIELDOPS_SHARED_DIR = path.join(repoRoot, 'no-such-shared-dir');
    t.match(sharedCorpus('corpus').skip, /shared corpus not found .*FIELDOPS_SHARED_DIR/);
    if (saved === undefined) delete process.env.FIELDOPS_SHARED_DIR;
    else process.env.FIELDOPS_SHARED_DIR = saved;
    const issues = [
      schemaIssue('ui_reference_error', { message: 'm', hints: ['h'], pointer: '/ui/order/0' }),
      schemaIssue('schema_validation_error', { message: 'm', hints: ['h'], severity: 'warning', pointer: '/json' }),
    ];
    t.same(codes(issues), ['ui_reference_error /ui/order/0']);
    t.same(codes(issues, 'all'), ['ui_reference_error /ui/order/0', 'schema_validation_error /json']);
  });
}
