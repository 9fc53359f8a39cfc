/** The sync feed benchmark's table: the targets next to the measured values and ratios. */

export interface Row {
  metric: string;
  /** The target as the issue states it ('-': none, measured for reference). */
  target: string;
  /**
   * How the measured value meets the target: at most, at least, equal, or `approx`: no more
   * than 1.5× the reference (a cost that does not grow; less is fine).
   */
  check?: 'max' | 'min' | 'eq' | 'approx';
  targetValue: number | null;
  measured: number;
  /** The older pull on the same data (null: no counterpart). */
  baseline: number | null;
  unit?: 'bytes' | 'ms' | '/s';
}

export function meets(row: Row): boolean | null {
  if (!row.check || row.targetValue === null) return null;
  switch (row.check) {
    case 'max':
      return row.measured <= row.targetValue;
    case 'min':
      return row.measured >= row.targetValue;
    case 'eq':
      return row.measured === row.targetValue;
    case 'approx':
      return row.measured <= row.targetValue * 1.5;
  }
}

function show(value: number | null, unit?: Row['unit']): string {
  if (value === null) return '-';
  if (unit === 'bytes') return value >= 1_000_000 ? `${(value / 1_000_000).toFixed(2)} MB` : value >= 1000 ? `${(value / 1000).toFixed(1)} kB` : `${value} B`;
  if (unit === 'ms') return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
  if (unit === '/s') return `${Math.round(value)}/s`;
  return String(Math.round(value * 100) / 100);
}

export function printReport(title: string, rows: Row[]): void {
  console.log(`\n${title}\n`);
  const head = ['metric'.padEnd(38), 'target'.padEnd(22), 'measured'.padStart(12), 'ratio'.padStart(8), '  ok ', 'older pull'.padStart(12), 'older/feed'.padStart(11)];
  console.log(head.join(''));
  for (const row of rows) {
    const ratio = row.targetValue ? (row.measured / row.targetValue).toFixed(2) : '-';
    const ok = meets(row);
    const vsOlder = row.baseline !== null && row.measured > 0 ? `${(row.baseline / row.measured).toFixed(1)}×` : '-';
    console.log([row.metric.padEnd(38), row.target.padEnd(22), show(row.measured, row.unit).padStart(12), ratio.padStart(8), ok === null ? '   - ' : ok ? '  yes' : '  NO ', show(row.baseline, row.unit).padStart(12), vsOlder.padStart(11)].join(''));
  }
}
