/**
 * Schema denial-of-service benchmark (issue 13, items 1-3): the cost of the review's inputs
 * before and now, measured in the same run, as tables whose "growth" columns show how the time
 * grows when the input grows (linear: growth ≈ the input ratio; the old code: its square, cube
 * or exponential). "Before" runs the pre-issue-13 algorithms (bench/lib/legacy-schema.ts) and a
 * plain Ajv (V8 regular expressions, pairwise uniqueItems, copying error concatenation) only at
 * sizes where it ends in seconds; larger sizes print "-".
 *
 *   node dist/bench/schema-dos.js [--json out.json]
 */
import fs from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import { buildEventDetailsValidator, createAjv, DRAFT_2020_12 } from '../schema/index.js';
import { closestKeyword } from '../schema/keywords.js';
import { linearRegExp } from '../schema/regex-engine.js';
import { legacyClosestKeyword, legacyToIssues } from './lib/legacy-schema.js';
import { parseArgs } from './lib/database.js';
import { timePerCall } from './lib/time-per-call.js';

type Ajv2020Class = typeof Ajv2020Module.default;
const Ajv2020: Ajv2020Class = (Ajv2020Module as unknown as { default?: Ajv2020Class }).default ?? (Ajv2020Module as unknown as Ajv2020Class);
const plainAjv = () => new Ajv2020({ allErrors: true, strict: false, logger: false });

const args = parseArgs(process.argv);

/** Milliseconds per call (100 ms windows). */
const measure = (work: () => unknown): number => timePerCall(work, 100);

interface Row { size: number; beforeMs: number | null; nowMs: number }
interface Table { title: string; unit: string; rows: Row[] }

function table(title: string, unit: string, sizes: number[], beforeUpTo: number, before: (n: number) => () => unknown, now: (n: number) => () => unknown): Table {
  const rows = sizes.map((size) => ({ size, beforeMs: size <= beforeUpTo ? measure(before(size)) : null, nowMs: measure(now(size)) }));
  return { title, unit, rows };
}

function print({ title, unit, rows }: Table): void {
  const fmt = (ms: number | null) => (ms === null ? '-' : ms < 1 ? ms.toFixed(3) : ms.toFixed(1));
  const growth = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? '-' : `${(a / b).toFixed(1)}x`);
  console.log(`\n${title}`);
  console.log(`${unit.padStart(10)} | size ratio | before ms | before growth | now ms | now growth | now µs per unit`);
  rows.forEach((row, i) => {
    const prev = rows[i - 1];
    console.log([
      String(row.size).padStart(10),
      (prev ? `${(row.size / prev.size).toFixed(1)}x` : '-').padStart(10),
      fmt(row.beforeMs).padStart(9),
      growth(row.beforeMs, prev?.beforeMs ?? null).padStart(13),
      fmt(row.nowMs).padStart(6),
      growth(row.nowMs, prev?.nowMs ?? null).padStart(10),
      ((row.nowMs * 1000) / row.size).toFixed(3).padStart(15),
    ].join(' | '));
  });
}

const choices = Array.from({ length: 30 }, (_, i) => ({ const: `c${i}`, title: `C${i}` }));
const multiChoice = { $schema: DRAFT_2020_12, type: 'object', properties: { tags: { type: 'array', items: { anyOf: choices } } } };
const invalidTags = (n: number) => ({ tags: Array.from({ length: n }, (_, i) => `wrong${i}`) });

const tables: Table[] = [];
const legacyDetails = plainAjv().compile(multiChoice);
tables.push(table('Item 1: event_details with N invalid multi-choice values (30-choice anyOf, as the server rendered them before): validation + error reporting', 'values',
  [100, 200, 400, 1_000, 10_000, 100_000], 400,
  (n) => { const data = invalidTags(n); return () => { legacyDetails(data); return legacyToIssues(legacyDetails.errors ?? []); }; },
  (n) => { const data = invalidTags(n); const validate = buildEventDetailsValidator(multiChoice); return () => validate(data); }));

const enumChoice = { $schema: DRAFT_2020_12, type: 'object', properties: { tags: { type: 'array', items: { enum: choices.map((c) => c.const) } } } };
tables.push(table('Item 1, as the server now validates (choices rendered as `enum`: one Ajv error per wrong value)', 'values',
  [100, 200, 400, 1_000, 10_000, 100_000], 400,
  (n) => { const data = invalidTags(n); return () => { legacyDetails(data); return legacyToIssues(legacyDetails.errors ?? []); }; },
  (n) => { const data = invalidTags(n); const validate = buildEventDetailsValidator(enumChoice); return () => validate(data); }));

const redos = '^(a+)+$';
tables.push(table(`Item 2: pattern ${redos} against N "a"s and a "!"`, 'chars',
  [16, 20, 24, 1_000, 100_000, 1_000_000], 24,
  (n) => { const input = `${'a'.repeat(n)}!`; const re = new RegExp(redos, 'u'); return () => re.test(input); },
  (n) => { const input = `${'a'.repeat(n)}!`; const re = linearRegExp(redos, 'u'); return () => re.test(input); }));

tables.push(table('Item 3: "did you mean" for an unknown keyword of N characters', 'chars',
  [1_000, 10_000, 40_000, 400_000], 40_000,
  (n) => { const word = `t${'y'.repeat(n)}pe`; return () => legacyClosestKeyword(word); },
  (n) => { const word = `t${'y'.repeat(n)}pe`; return () => closestKeyword(word); }));

const metaErrors = (n: number) => {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) properties[`f${i}`] = { type: 5 };
  return { $schema: DRAFT_2020_12, type: 'object', properties };
};
const legacyMeta = plainAjv().getSchema(DRAFT_2020_12)!;
tables.push(table('Also: a document with N wrong `type` values (meta-schema errors through $dynamicRef)', 'errors',
  [1_000, 4_000, 16_000, 64_000], 16_000,
  (n) => { const json = metaErrors(n); return () => legacyMeta(json); },
  (n) => { const json = metaErrors(n); const meta = createAjv().getSchema(DRAFT_2020_12)!; return () => meta(json); }));

const uniqueSchema = { type: 'object', properties: { a: { type: 'array', uniqueItems: true } } };
const legacyUnique = plainAjv().compile(uniqueSchema);
const distinctObjects = (n: number) => ({ a: Array.from({ length: n }, (_, i) => ({ k: i })) });
tables.push(table('Also: uniqueItems over N distinct objects (no item type)', 'items',
  [1_000, 4_000, 16_000, 64_000], 16_000,
  (n) => { const data = distinctObjects(n); return () => legacyUnique(data); },
  (n) => { const data = distinctObjects(n); const validate = buildEventDetailsValidator(uniqueSchema); return () => validate(data); }));

for (const t of tables) print(t);
console.log('\nLinear: "now growth" follows "size ratio". Before: growth ~ ratio^3 (item 1), ~2^4 per 4 chars (item 2), ratio (item 3, but ~1 µs per char × 60 keywords, 17 s at 400 KB), ratio^2 (the others).');
const out = args.get('json');
if (out) fs.writeFileSync(out, JSON.stringify({ benchmark: 'schema-dos', tables }, null, 2));
