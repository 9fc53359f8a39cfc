/**
 * Schema diff and breaking-change lint (issue 28, target: diff of two revisions of the largest
 * schema under 50 ms): the semantic diff and `checkCompatibility` of two revisions of the largest
 * v2 document in fixtures/ and the shared EarthRanger corpus (when present, read in place), and
 * of a synthetic 2,000-field schema. Warm medians over `--runs` runs (default 50), interleaved, against a
 * baseline measured in the same run: `JSON.parse` + `JSON.stringify` of both documents (the
 * least any comparison of the two texts costs). The table shows milliseconds and the ratios.
 *
 *   node dist/bench/schema-diff.js [--runs 50] [--json out.json]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCompatibility, summariseEvents, type UsageSummary } from '../schema/compat/index.js';
import { choiceLookupFrom, diffSchemaDocuments, flattenSchema, type ChoiceLookup } from '../schema/diff/index.js';
import { groupChoices, toChoiceRecords } from '../schema/index.js';
import { parseArgs } from './lib/database.js';

type Doc = { json: Record<string, any>; ui: Record<string, any> };
const args = parseArgs(process.argv);
const RUNS = Number(args.get('runs') ?? 50);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (file: string): any => JSON.parse(fs.readFileSync(file, 'utf8'));
const isDoc = (v: unknown): v is Doc => !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as Doc).json === 'object' && (v as Doc).json !== null;

const records = [...toChoiceRecords(readJson(path.join(root, 'fixtures/schemas/choices.json'))), ...toChoiceRecords(readJson(path.join(root, 'fixtures/demo/choices.json')))];
const lookup: ChoiceLookup = choiceLookupFrom(groupChoices(records));

/** Every v2 document of the fixtures and the shared corpus, by name. */
function corpus(): Array<[string, Doc]> {
  const out: Array<[string, Doc]> = [];
  const scan = (dir: string, label: string): void => {
    if (!fs.existsSync(dir)) return;
    for (const file of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, file);
      if (fs.statSync(full).isDirectory()) { scan(full, `${label}/${file}`); continue; }
      if (!file.endsWith('.json')) continue;
      let content: any;
      try { content = readJson(full); } catch { continue; }
      const found = [content, ...(content && typeof content === 'object' ? Object.values(content) : [])].flatMap((v: any) => (Array.isArray(v) ? v.map((e: any) => e?.schema ?? e) : [v?.schema ?? v])).filter(isDoc);
      found.forEach((doc, i) => out.push([`${label}/${file}#${i}`, doc]));
    }
  };
  scan(path.join(root, 'fixtures'), 'fixtures');
  scan(path.resolve(process.env.FIELDOPS_SHARED_DIR ?? path.join(root, '../shared'), 'corpus/earthranger'), 'shared');
  return out;
}

function fieldCount(doc: Doc): number {
  try { return flattenSchema(doc, lookup).fields.size; } catch { return -1; }
}

function synthetic(size: number): Doc {
  const doc: Doc = { json: { type: 'object', required: [], properties: {} }, ui: { fields: {}, order: [], sections: {}, headers: {} } };
  for (let i = 0; i < size; i++) {
    const section = `s${Math.floor(i / 100)}`;
    doc.json.properties[`f${i}`] = i % 3 === 0 ? { type: 'integer', title: `Field ${i}`, minimum: 0 } : i % 3 === 1 ? { type: 'string', title: `Field ${i}`, maxLength: 50 } : { type: 'string', title: `Field ${i}`, enum: ['a', 'b', `v${i}`] };
    if (i % 10 === 0) doc.json.required.push(`f${i}`);
    doc.ui.fields[`f${i}`] = { type: 'TEXT', inputType: 'SHORT_TEXT', parent: section };
    if (!doc.ui.sections[section]) { doc.ui.sections[section] = { label: section, columns: 2, isActive: true, leftColumn: [], rightColumn: [] }; doc.ui.order.push(section); }
    doc.ui.sections[section][i % 2 === 0 ? 'leftColumn' : 'rightColumn'].push({ name: `f${i}`, type: 'field' });
  }
  return doc;
}

/** A second revision: every tenth field retitled, one removed, one added, bounds narrowed, a choice dropped. */
function revise(doc: Doc): Doc {
  const next = structuredClone(doc);
  const props = next.json.properties ?? {};
  Object.keys(props).forEach((name, i) => {
    const f = props[name];
    if (!f || typeof f !== 'object') return;
    if (i % 10 === 0) f.title = `${f.title ?? name} (revised)`;
    if (typeof f.maximum === 'number') f.maximum -= 1;
    if (Array.isArray(f.enum) && f.enum.length > 1) f.enum = f.enum.slice(0, -1);
  });
  const first = Object.keys(props)[0];
  if (first !== undefined) delete props[first];
  props.added_in_bench = { type: 'string', title: 'Added' };
  return next;
}

/** Usage of 500 events holding a plausible value of every top-level field. */
function usageFor(doc: Doc): UsageSummary {
  const value = (f: any, i: number): unknown => (Array.isArray(f?.enum) ? f.enum[i % f.enum.length] : f?.type === 'integer' ? i : f?.type === 'number' ? i + 0.5 : f?.type === 'boolean' ? i % 2 === 0 : `text ${i % 40}`);
  const events = Array.from({ length: 500 }, (_, i) => Object.fromEntries(Object.entries<any>(doc.json.properties ?? {}).filter((_, k) => (i + k) % 3 !== 0).map(([k, f]) => [k, value(f, i)])));
  return summariseEvents('bench', events);
}

/**
 * Warm medians of several works, measured interleaved (one run of each in turn), so that a busy
 * machine's swings fall on all of them alike; 10 warm-up rounds first.
 */
function medians(works: Array<() => unknown>): number[] {
  for (let i = 0; i < 10; i++) for (const work of works) work();
  const times = works.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    works.forEach((work, k) => {
      const start = performance.now();
      work();
      times[k]!.push(performance.now() - start);
    });
  }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]!);
}

interface Row { name: string; fields: number; bytes: number; baselineMs: number; diffMs: number; compatMs: number; changes: number; findings: number }

function measure(name: string, before: Doc): Row {
  const after = revise(before);
  const usage = usageFor(before);
  const textBefore = JSON.stringify(before);
  const textAfter = JSON.stringify(after);
  const diff = diffSchemaDocuments(before, after, { choices: lookup });
  const compat = checkCompatibility({ before, after, beforeValue: 'bench', afterValue: 'bench', usage, choices: lookup });
  const [baselineMs, diffMs, compatMs] = medians([
    () => JSON.stringify(JSON.parse(textBefore)) + JSON.stringify(JSON.parse(textAfter)),
    () => diffSchemaDocuments(before, after, { choices: lookup }),
    () => checkCompatibility({ before, after, beforeValue: 'bench', afterValue: 'bench', usage, choices: lookup }),
  ]) as [number, number, number];
  return { name, fields: fieldCount(before), bytes: textBefore.length, baselineMs, diffMs, compatMs, changes: diff.changes.length, findings: compat.findings.length };
}

const docs = corpus().map(([name, doc]) => ({ name, doc, fields: fieldCount(doc) })).filter((d) => d.fields > 0).sort((a, b) => b.fields - a.fields || b.name.localeCompare(a.name));
const rows: Row[] = [];
const largestFixture = docs.find((d) => d.name.startsWith('fixtures/'));
const largestShared = docs.find((d) => d.name.startsWith('shared/'));
if (largestFixture) rows.push(measure(`largest fixture: ${largestFixture.name}`, largestFixture.doc));
if (largestShared) rows.push(measure(`largest shared: ${largestShared.name}`, largestShared.doc));
else console.log('(shared EarthRanger corpus not found: set FIELDOPS_SHARED_DIR)');
rows.push(measure('synthetic 2,000 fields', synthetic(2000)));

const fmt = (ms: number): string => (ms < 1 ? ms.toFixed(3) : ms.toFixed(1));
console.log(`\nSchema diff and compat check, warm medians over ${RUNS} interleaved runs (baseline: JSON.parse + JSON.stringify of both documents)`);
console.log('fields | bytes | baseline ms | diff ms | diff/baseline | compat ms | compat/baseline | changes | findings | diff < 50 ms | document');
for (const r of rows) {
  console.log([
    String(r.fields).padStart(6), String(r.bytes).padStart(7), fmt(r.baselineMs).padStart(11), fmt(r.diffMs).padStart(7),
    `${(r.diffMs / r.baselineMs).toFixed(1)}x`.padStart(13), fmt(r.compatMs).padStart(9), `${(r.compatMs / r.baselineMs).toFixed(1)}x`.padStart(15),
    String(r.changes).padStart(7), String(r.findings).padStart(8), (r.diffMs < 50 ? 'yes' : 'NO').padStart(12), r.name,
  ].join(' | '));
}
const out = args.get('json');
if (out) fs.writeFileSync(out, JSON.stringify({ runs: RUNS, rows }, null, 2));
