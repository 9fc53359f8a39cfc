/** Aligned plain-text tables (the same on a TTY and in a pipe; colours only on a TTY). */
import { visibleLength } from './style.js';

export interface TableOptions {
  /** Columns aligned right (numbers). */
  right?: readonly number[];
  /** Text put in front of each line. */
  indent?: string;
}

export function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, options: TableOptions = {}): string {
  const widths = headers.map((h, i) => Math.max(visibleLength(h), ...rows.map((row) => visibleLength(row[i] ?? ''))));
  const indent = options.indent ?? '';
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - visibleLength(cell)));
        if (i === cells.length - 1 && !options.right?.includes(i)) return cell;
        return options.right?.includes(i) ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}
