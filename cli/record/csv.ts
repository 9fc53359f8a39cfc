/**
 * CSV datasheets through csv-parse (RFC 4180: quoted fields with `""` escapes and line breaks
 * inside, CRLF, LF or CR, a UTF-8 BOM ignored, blank lines skipped). Each record keeps the line it
 * starts on and its cells in order (a cell's column is its index + 1), for `FILE:line:column`
 * reports. Linear in the input; the caller bounds the input's size, and one record is bounded
 * here (MAX_RECORD_BYTES).
 */
import { CsvError, parse } from 'csv-parse/sync';

export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A file that is not CSV (an unclosed quote, a quote inside a bare cell, a record too long). */
export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number = 1,
  ) {
    super(message);
  }
}

/** One record (a row, quoted line breaks included) may not be larger than this. */
export const MAX_RECORD_BYTES = 1024 * 1024;

const LF = 10;
const CR = 13;

export function parseCsv(text: string): CsvRecord[] {
  const bytes = Buffer.from(text, 'utf8');
  // NOTE: csv-parse counts a CRLF inside a quoted cell as two lines (its `info.lines`), so the
  // start line is counted here from the byte offsets it reports (`info.bytes`: the end of each
  // record, its delimiter included): a CRLF, a lone CR and a LF are one line break each.
  let line = 1;
  let scanned = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const startLine = (end: number) => {
    // Blank lines before the record are skipped by the parser: they belong to no record.
    while (scanned < end && (bytes[scanned] === LF || bytes[scanned] === CR)) advance();
    const at = line;
    while (scanned < end) advance();
    return at;
  };
  const advance = () => {
    const c = bytes[scanned++];
    if (c === LF || (c === CR && bytes[scanned] !== LF)) line++;
  };
  try {
    // NOTE: with `info`, csv-parse hands `on_record` `{record, info}`; its types do not say so.
    return (parse as unknown as (input: Buffer, options: Record<string, unknown>) => CsvRecord[])(bytes, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      max_record_size: MAX_RECORD_BYTES,
      on_record: ({ record, info }: { record: string[]; info: { bytes: number } }) => ({ line: startLine(info.bytes), fields: record }),
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // An unclosed quote runs to the end of the file: report the line its record starts on.
    while (scanned < bytes.length && (bytes[scanned] === LF || bytes[scanned] === CR)) advance();
    throw syntaxError(error, error.code === 'CSV_QUOTE_NOT_CLOSED' ? line : null);
  }
}

function syntaxError(error: CsvError, recordLine: number | null): CsvSyntaxError {
  const at = error as CsvError & { lines?: number; column?: number | string };
  const line = recordLine ?? (typeof at.lines === 'number' && at.lines > 0 ? at.lines : 1);
  const column = typeof at.column === 'number' ? at.column + 1 : 1;
  const reasons: Record<string, string> = {
    CSV_QUOTE_NOT_CLOSED: 'a quoted cell is not closed',
    INVALID_OPENING_QUOTE: 'a quote inside a cell that does not start with one',
    CSV_INVALID_CLOSING_QUOTE: 'text after the closing quote of a cell',
    CSV_MAX_RECORD_SIZE: `a row larger than ${MAX_RECORD_BYTES / 1024 / 1024} MiB`,
  };
  return new CsvSyntaxError(reasons[error.code] ?? error.message, line, column);
}
