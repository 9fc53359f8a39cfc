/**
 * `fieldops export`: rows of the mirror encoded and written as they are read, with the output
 * stream's backpressure respected (a slow disk or pipe slows the cursor, nothing piles up).
 */
import { once } from 'node:events';
import type { Knex } from 'knex';
import { eventEncoder, subjectEncoder, trackEncoder, type Encoder, type ExportFormat, type ExportKind } from './encoders.js';
import { eventRows, subjectRows, trackPoints, type ExportFilter } from './rows.js';

export interface ExportSummary {
  kind: ExportKind;
  format: ExportFormat;
  /** Rows written. */
  written: number;
  /** Rows this format cannot hold (no position, for GPX and KML). */
  skipped: number;
  /** Distinct tracks (subject and source) written, for tracks. */
  tracks?: number;
}

/** Text is gathered up to this size before a write. */
const WRITE_CHUNK = 64 * 1024;

export async function runExport(
  knex: Knex,
  input: { kind: ExportKind; format: ExportFormat; filter: ExportFilter },
  out: NodeJS.WritableStream,
  progress: (written: number) => void = () => {},
): Promise<ExportSummary> {
  let pending = '';
  const write = async (text: string, force = false) => {
    pending += text;
    if (pending.length < WRITE_CHUNK && !force) return;
    const chunk = pending;
    pending = '';
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const summary: ExportSummary = { kind: input.kind, format: input.format, written: 0, skipped: 0 };
  const pump = async <T>(encoder: Encoder<T>, rows: AsyncIterable<T>, each?: (row: T) => void) => {
    await write(encoder.head);
    for await (const row of rows) {
      const text = encoder.encode(row);
      if (text === null) {
        summary.skipped++;
        continue;
      }
      summary.written++;
      each?.(row);
      await write(text);
      if (summary.written % 5000 === 0) progress(summary.written);
    }
    await write(encoder.tail(), true);
  };
  if (input.kind === 'events') await pump(eventEncoder(input.format), eventRows(knex, input.filter));
  else if (input.kind === 'subjects') await pump(subjectEncoder(input.format), subjectRows(knex, input.filter));
  else {
    let last: string | null = null;
    summary.tracks = 0;
    await pump(trackEncoder(input.format), trackPoints(knex, input.filter), (p) => {
      const key = `${p.subject}\u0000${p.source}`;
      if (key !== last) summary.tracks!++;
      last = key;
    });
  }
  return summary;
}
