/**
 * Regular-expression engines for user patterns (issue 24, item 14): the native `re2` package the
 * toolkit uses (schema/regex-engine.ts) against `re2js`, a pure-JavaScript port of RE2 that would
 * spare every install the node-gyp build of `re2`. Both match in time linear in the input; the
 * question is the factor. Native `re2` is the baseline, measured in the same run: each case
 * and size is measured in `--rounds` rounds, the engines in alternating order, each measurement
 * repeated until 50 ms have passed; the table shows medians and re2js/re2. V8's backtracking
 * RegExp is shown for reference on the typical patterns only (it is exponential on the
 * adversarial ones, which is why neither it nor any backtracking engine is an option).
 *
 * The engines are called as the toolkit calls them: `test(value)`, unanchored, a fresh string
 * each time (the native binding converts it to UTF-8 on each call: part of its real cost).
 * "Whole budget" is how long one `event_details` validation may hold the event loop at worst with
 * that pattern: PATTERN_BUDGET (10^8 character-steps) divided by the pattern's program size, at
 * the 1 MB rate.
 *
 *   node dist/bench/regex-engines.js [--rounds 3] [--sizes 100,1000,10000,100000,1000000]
 *
 * Prints tables and writes bench/results/regex-engines.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import RE2 from 're2';
import { RE2JS } from 're2js';
import { PATTERN_BUDGET, userPatternProblem } from '../schema/regex-engine.js';
import { regexProgramSize } from '../schema/regex-size.js';
import { parseArgs } from './lib/database.js';
import { repoRoot } from './lib/processes.js';
import { timePerCall } from './lib/time-per-call.js';

const args = parseArgs(process.argv);
const ROUNDS = Number(args.get('rounds') ?? 3);
const SIZES = (args.get('sizes') ?? '100,1000,10000,100000,1000000').split(',').map(Number);

interface Case {
  name: string;
  pattern: string;
  kind: 'typical' | 'adversarial';
  /** An input of exactly `n` characters (UTF-16 code units). */
  input(n: number): string;
  /** The match is decided within the first characters, whatever the input's length. */
  stopsEarly?: true;
}

/** Deterministic pseudo-random a/b text (a linear congruential generator), the DFA's worst case. */
function randomAB(n: number): string {
  const out: string[] = [];
  let x = 20261125;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
    out.push((x >> 16) & 1 ? 'a' : 'b');
  }
  return out.join('');
}

/** `text` repeated to exactly n characters. */
const fill = (text: string, n: number) => text.repeat(Math.ceil(n / text.length)).slice(0, n);

/**
 * `^(a|b)*a(a|b){k}$` fails only when the (k+1)-th character from the end is `b`, after reading
 * every character; random a/b keeps RE2's DFA from settling (it needs 2^(k+1) states).
 */
const failingAB = (k: number) => (n: number) => {
  const s = randomAB(n);
  const at = n - k - 1;
  return at < 0 ? s : `${s.slice(0, at)}b${s.slice(at + 1)}`;
};

const CASES: Case[] = [
  { name: 'slug id (stops at the 41st character)', pattern: '^[a-z0-9_-]{1,40}$', kind: 'typical', input: (n) => fill('a', n), stopsEarly: true },
  { name: 'free text without control characters', pattern: '^[^\\x00-\\x1f]*$', kind: 'typical', input: (n) => fill('Fence cut at km 4, north side; ', n) },
  { name: "a person's name (Unicode letters)", pattern: "^\\p{L}[\\p{L} '.-]*$", kind: 'typical', input: (n) => fill('Wanjiru Kamau Ngũgĩ ', n - 1) + 'x' },
  { name: 'e-mail address', pattern: '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', kind: 'typical', input: (n) => `${fill('ranger.', n - 12)}@example.org` },
  // Digits and hyphens but no date: re2js skips text that lacks a literal the pattern needs (`-`),
  // which would measure that shortcut rather than the engine.
  { name: 'a date anywhere in text (none: scans all)', pattern: '\\d{4}-\\d{2}-\\d{2}', kind: 'typical', input: (n) => fill('fence km 14-15, gate 7-B, 2026 count: 3 calves; ', n) },
  { name: 'nested quantifier, a...a!', pattern: '^(a+)+$', kind: 'adversarial', input: (n) => `${fill('a', n - 1)}!` },
  { name: 'DFA blow-up, 2^13 states', pattern: '^(a|b)*a(a|b){12}$', kind: 'adversarial', input: failingAB(12) },
  { name: 'DFA blow-up at the size cap', pattern: '^(a|b)*a(a|b){47}$', kind: 'adversarial', input: failingAB(47) },
];

interface Matcher { test(input: string): boolean }
type EngineName = 're2' | 're2js' | 'v8';
const engines: Record<EngineName, (pattern: string) => Matcher> = {
  re2: (pattern) => new RE2(pattern, 'u'),
  re2js: (pattern) => RE2JS.compile(pattern),
  v8: (pattern) => new RegExp(pattern, 'u'),
};

/** Milliseconds per call (50 ms windows). */
const measure = (work: () => unknown): number => timePerCall(work, 50);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const version = (name: string) => (JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

interface Row { case: string; pattern: string; kind: Case['kind']; chars: number; matched: boolean; ms: Partial<Record<EngineName, number>>; ratio: number }
interface CompileRow { pattern: string; programSize: number; compileUs: Record<'re2' | 're2js', number>; wholeBudgetMs: Record<'re2' | 're2js', number> | null }

const rows: Row[] = [];
const compiles: CompileRow[] = [];
let disagreements = 0;

for (const c of CASES) {
  // Only patterns the server accepts are worth measuring.
  const problem = userPatternProblem(c.pattern);
  if (problem) throw new Error(`${c.pattern} would be refused: ${problem.message}`);
  const matchers = { re2: engines.re2(c.pattern), re2js: engines.re2js(c.pattern), v8: engines.v8(c.pattern) };
  for (const n of SIZES) {
    const input = c.input(n);
    const answers = { re2: matchers.re2.test(input), re2js: matchers.re2js.test(input), v8: c.kind === 'typical' ? matchers.v8.test(input) : undefined };
    if (answers.re2 !== answers.re2js || (answers.v8 !== undefined && answers.v8 !== answers.re2)) {
      disagreements++;
      console.log(`engines disagree on ${c.pattern} at ${n} characters: ${JSON.stringify(answers)}`);
    }
    const times: Record<'re2' | 're2js' | 'v8', number[]> = { re2: [], re2js: [], v8: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<'re2' | 're2js'> = round % 2 === 0 ? ['re2', 're2js'] : ['re2js', 're2'];
      for (const engine of order) times[engine].push(measure(() => matchers[engine].test(input)));
      if (c.kind === 'typical') times.v8.push(measure(() => matchers.v8.test(input)));
    }
    const ms: Row['ms'] = { re2: median(times.re2), re2js: median(times.re2js) };
    if (c.kind === 'typical') ms.v8 = median(times.v8);
    rows.push({ case: c.name, pattern: c.pattern, kind: c.kind, chars: n, matched: answers.re2, ms, ratio: ms.re2js! / ms.re2! });
  }
  const programSize = Math.max(1, regexProgramSize(c.pattern));
  const compileUs = {
    re2: median(Array.from({ length: ROUNDS }, () => measure(() => engines.re2(c.pattern)))) * 1000,
    re2js: median(Array.from({ length: ROUNDS }, () => measure(() => engines.re2js(c.pattern)))) * 1000,
  };
  const largest = rows.filter((row) => row.pattern === c.pattern).at(-1)!;
  // A pattern that stops early does not spend the budget at its per-call rate.
  const perChar = (engine: 're2' | 're2js') => largest.ms[engine]! / largest.chars;
  const wholeBudgetMs = !c.stopsEarly ? { re2: perChar('re2') * (PATTERN_BUDGET / programSize), re2js: perChar('re2js') * (PATTERN_BUDGET / programSize) } : null;
  compiles.push({ pattern: c.pattern, programSize, compileUs, wholeBudgetMs });
}

const fmt = (ms: number | undefined) => (ms === undefined ? '-' : ms < 0.01 ? ms.toFixed(4) : ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const nsPerChar = (ms: number | undefined, n: number) => (ms === undefined ? '-' : ((ms * 1e6) / n).toFixed(1));

console.log(`Regular-expression engines: re2 ${version('re2')} (native, baseline) vs re2js ${version('re2js')} (pure JS); median of ${ROUNDS} alternating rounds`);
console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, Node ${process.version}\n`);
console.log('| case | pattern | characters | match | re2 ms | re2js ms | re2js/re2 | re2 ns/char | re2js ns/char | V8 RegExp ms |');
console.log('|---|---|---:|---|---:|---:|---:|---:|---:|---:|');
for (const row of rows) {
  console.log(`| ${row.case} | \`${row.pattern}\` | ${row.chars.toLocaleString('en')} | ${row.matched ? 'yes' : 'no'} | ${fmt(row.ms.re2)} | ${fmt(row.ms.re2js)} | ${row.ratio.toFixed(1)}x | ${nsPerChar(row.ms.re2, row.chars)} | ${nsPerChar(row.ms.re2js, row.chars)} | ${fmt(row.ms.v8)} |`);
}

console.log('\n| pattern | program size | compile µs re2 | compile µs re2js | whole budget re2 | whole budget re2js |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const c of compiles) {
  const budget = (engine: 're2' | 're2js') => (c.wholeBudgetMs ? `${fmt(c.wholeBudgetMs[engine])} ms` : 'stops early');
  console.log(`| \`${c.pattern}\` | ${c.programSize} | ${c.compileUs.re2.toFixed(1)} | ${c.compileUs.re2js.toFixed(1)} | ${budget('re2')} | ${budget('re2js')} |`);
}

const at1MB = rows.filter((row) => row.chars === Math.max(...SIZES));
const stopsEarly = new Set(CASES.filter((c) => c.stopsEarly).map((c) => c.pattern));
const typical = at1MB.filter((row) => row.kind === 'typical' && !stopsEarly.has(row.pattern)).map((row) => row.ratio);
const adversarial = at1MB.filter((row) => row.kind === 'adversarial').map((row) => row.ratio);
if (typical.length && adversarial.length) {
  console.log(`\nAt ${Math.max(...SIZES).toLocaleString('en')} characters re2js takes ${Math.min(...typical).toFixed(1)}-${Math.max(...typical).toFixed(1)}x re2's time on the typical patterns that read the whole value, ${Math.min(...adversarial).toFixed(1)}-${Math.max(...adversarial).toFixed(1)}x on the adversarial ones.`);
}
if (disagreements) {
  console.log(`${disagreements} disagreement(s) between the engines (above)`);
  process.exitCode = 1;
}

const outDir = path.join(repoRoot, 'bench/results');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'regex-engines.json'), JSON.stringify({
  benchmark: 'regex-engines',
  engines: { re2: version('re2'), re2js: version('re2js') },
  node: process.version,
  cores: os.cpus().length,
  loadAverage: os.loadavg(),
  rounds: ROUNDS,
  rows,
  compiles,
}, null, 2));
