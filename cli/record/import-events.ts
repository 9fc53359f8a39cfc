/**
 * `fieldops events import`: every row of a datasheet validated offline, reported in the lint
 * formats (`FILE:line:column`, the field's pointer, a hint), and queued in one transaction:
 * all rows, or (with `skipInvalid`) the valid ones; nothing of a file with an invalid row
 * otherwise. Ids derive from the file's content and the row, so importing twice queues nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { contentDigest, derivedId } from '../../sync/outbox/ids.js';
import type { NewEntry } from '../../sync/outbox/model.js';
import type { OutboxStore } from '../../sync/outbox/store.js';
import type { MirrorStore } from '../../sync/mirror/store.js';
import { UserFacingError } from '../errors.js';
import type { LintFinding } from '../lint/lint-file.js';
import type { LintReport } from '../lint/report.js';
import { CsvSyntaxError } from './csv.js';
import { buildEvent, type RecordIssue } from './event-record.js';
import { readRows, type SourceRow } from './event-rows.js';
import { eventTypeForRecording, type EventTypeForRecording } from './event-type.js';

/** Larger datasheets are split first: the whole file is validated in memory. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

export type ImportFormat = 'csv' | 'json' | 'ndjson';

export interface ImportResult {
  report: LintReport;
  rows: number;
  valid: number;
  invalid: number;
  /** Newly queued (0 when the same file was imported before). */
  queued: number;
  /** Problems of the file itself (no header, unknown columns, bad JSON): nothing is queued. */
  fileProblems: number;
  validateMs: number;
}

/** The rows of a datasheet; a file that is not CSV is one problem of the file, where it is. */
function readSheet(format: ImportFormat, text: string, type: EventTypeForRecording): { rows: SourceRow[]; fileIssues: Array<RecordIssue & { line: number; column?: number }> } {
  try {
    return readRows(format, text, type);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    const hints = ['quote cells that contain commas, quotes or line breaks ("a ""quoted"" word")'];
    return { rows: [], fileIssues: [{ line: error.line, column: error.column, field: '', pointer: '', code: 'invalid_csv', message: `not valid CSV: ${error.message}`, hints }] };
  }
}

export function formatOf(file: string, given?: string): ImportFormat {
  const format = (given ?? path.extname(file).slice(1)).toLowerCase();
  if (format === 'csv' || format === 'json' || format === 'ndjson') return format;
  if (format === 'jsonl') return 'ndjson';
  throw new UserFacingError(`cannot tell the format of ${file}`, 'name it .csv, .json or .ndjson, or pass --input-format csv|json|ndjson', 2);
}

export function readImportFile(file: string): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UserFacingError(`cannot read ${file}`, 'check the path', 2);
  }
  if (stat.size > MAX_IMPORT_BYTES) throw new UserFacingError(`${file} is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MiB`, 'split it into several files', 2);
  return fs.readFileSync(file);
}

export async function importEvents(input: { file: string; shownPath: string; format: ImportFormat; type: string; skipInvalid: boolean; mirror: MirrorStore; outbox: OutboxStore }): Promise<ImportResult> {
  const bytes = readImportFile(input.file);
  const digest = contentDigest(bytes);
  const started = performance.now();
  const type = await eventTypeForRecording(input.mirror, input.type);
  const { rows, fileIssues } = readSheet(input.format, bytes.toString('utf8'), type);
  const findings: LintFinding[] = fileIssues.map((i) => ({ document: '', pointer: i.pointer, line: i.line, column: i.column ?? 1, severity: 'error', code: i.code, category: 'validation', message: i.message, hints: i.hints }));
  const entries: NewEntry[] = [];
  let invalid = 0;
  for (const row of rows) {
    const id = derivedId(digest, 'event', type.value, row.row);
    const { body, issues } = buildEvent(type, id, row.input);
    const all = [...row.issues, ...issues.filter((i) => !row.issues.some((r) => r.pointer === i.pointer))];
    for (const issue of all) {
      const at = row.locate?.(issue.pointer) ?? { line: row.line, column: row.columns.get(issue.field === 'location' ? 'latitude' : issue.field) ?? 1 };
      findings.push({
        document: `/${row.row}`, pointer: issue.pointer, line: at.line, column: at.column,
        severity: 'error', code: issue.code, category: 'validation', message: `row ${row.row}: ${issue.message}`, hints: issue.hints,
      });
    }
    if (all.length > 0) invalid++;
    else entries.push({ id, kind: 'event.create', target: id, body, source: `${input.shownPath}:${row.line}` });
  }
  const validateMs = performance.now() - started;
  const report: LintReport = { files: [{ path: input.shownPath, kind: 'document', documents: rows.map((r) => `/${r.row}`), findings }], choiceSource: 'the mirror' };
  const blocked = fileIssues.length > 0 || (invalid > 0 && !input.skipInvalid);
  const queued = blocked ? 0 : await input.outbox.enqueue(entries);
  return { report, rows: rows.length, valid: entries.length, invalid, queued, fileProblems: fileIssues.length, validateMs };
}
