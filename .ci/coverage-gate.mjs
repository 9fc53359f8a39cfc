#!/usr/bin/env node
// The coverage thresholds we mean (tap 21 has no per-metric thresholds of its own): reads the
// json-summary report of the last `npm test` run and fails when an area falls below its floor.
// Usage: node .ci/coverage-gate.mjs <coverage-summary.json>
import fs from 'node:fs';
import path from 'node:path';

// Floors a little under what the suite reaches on SQLite (2026-11-21: server 97.8/89.8/97.0,
// schema 96.8/89.8/97.8, sync 96.6/77.4/98.0, cli 95.4/81.8/96.8 for lines/branches/functions).
const FLOORS = {
  server: { lines: 95, branches: 86, functions: 94 },
  schema: { lines: 94, branches: 86, functions: 94 },
  sync: { lines: 93, branches: 73, functions: 94 },
  cli: { lines: 91, branches: 77, functions: 92 },
};

const summary = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const root = process.cwd();
const totals = {};
for (const [file, metrics] of Object.entries(summary)) {
  if (file === 'total') continue;
  const area = path.relative(root, file).split(path.sep)[0];
  if (!(area in FLOORS)) continue;
  totals[area] ??= { lines: [0, 0], branches: [0, 0], functions: [0, 0] };
  for (const metric of ['lines', 'branches', 'functions']) {
    totals[area][metric][0] += metrics[metric].covered;
    totals[area][metric][1] += metrics[metric].total;
  }
}
let failed = false;
console.log('| area | lines | branches | functions |');
console.log('|---|---:|---:|---:|');
for (const [area, floors] of Object.entries(FLOORS)) {
  const cells = ['lines', 'branches', 'functions'].map((metric) => {
    const [covered, total] = totals[area]?.[metric] ?? [0, 0];
    const pct = total === 0 ? 100 : (100 * covered) / total;
    const ok = pct >= floors[metric];
    failed ||= !ok;
    return `${pct.toFixed(1)}% ${ok ? '' : `(below ${floors[metric]}%)`}`.trim();
  });
  console.log(`| ${area} | ${cells.join(' | ')} |`);
}
if (failed) {
  console.error('coverage gate: an area is below its floor');
  process.exit(1);
}
