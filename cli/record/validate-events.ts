/**
 * `fieldops events validate`: sample records (a datasheet, as `events import` reads it) checked
 * against an event type, reported in the lint formats, nothing queued. Against the mirrored
 * type (offline), or with `--draft` against the type's draft on the server (issue 28: drafts are
 * never mirrored, so that one is online only).
 */
import type { MirrorItem, MirrorStore } from '../../sync/mirror/store.js';
import type { Transport } from '../../sync/http.js';
import { UserFacingError } from '../errors.js';
import type { LintFinding } from '../lint/lint-file.js';
import type { LintReport } from '../lint/report.js';
import { CsvSyntaxError } from './csv.js';
import { buildEvent } from './event-record.js';
import { readRows } from './event-rows.js';
import { eventTypeForRecording, type EventTypeForRecording } from './event-type.js';
import { readImportFile, type ImportFormat } from './import-events.js';

export interface ValidateResult {
  report: LintReport;
  rows: number;
  valid: number;
  invalid: number;
  fileProblems: number;
}

export function validateRecords(input: { file: string; shownPath: string; format: ImportFormat; type: EventTypeForRecording }): ValidateResult {
  const text = readImportFile(input.file).toString('utf8');
  let sheet: ReturnType<typeof readRows>;
  try {
    sheet = readRows(input.format, text, input.type);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    sheet = { rows: [], fileIssues: [{ line: error.line, field: '', pointer: '', code: 'invalid_csv', message: `not valid CSV: ${error.message}`, hints: [] }] };
  }
  const findings: LintFinding[] = sheet.fileIssues.map((i) => ({ document: '', pointer: i.pointer, line: i.line, column: 1, severity: 'error', code: i.code, category: 'validation', message: i.message, hints: i.hints }));
  let invalid = 0;
  for (const row of sheet.rows) {
    const { issues } = buildEvent(input.type, `row-${row.row}`, row.input);
    const all = [...row.issues, ...issues.filter((i) => !row.issues.some((r) => r.pointer === i.pointer))];
    for (const issue of all) {
      const at = row.locate?.(issue.pointer) ?? { line: row.line, column: row.columns.get(issue.field === 'location' ? 'latitude' : issue.field) ?? 1 };
      findings.push({ document: `/${row.row}`, pointer: issue.pointer, line: at.line, column: at.column, severity: 'error', code: issue.code, category: 'validation', message: `row ${row.row}: ${issue.message}`, hints: issue.hints });
    }
    if (all.length > 0) invalid++;
  }
  const report: LintReport = { files: [{ path: input.shownPath, kind: 'document', documents: sheet.rows.map((r) => `/${r.row}`), findings }], choiceSource: 'the mirror' };
  return { report, rows: sheet.rows.length, valid: sheet.rows.length - invalid, invalid, fileProblems: sheet.fileIssues.length };
}

/**
 * The type with its draft as schema: the server's current record (so a type not yet mirrored
 * works), the draft's {json, ui}, and the mirrored choice lists when there is a mirror.
 * NOTE: eventTypeForRecording reads a MirrorStore; this one answers only what it asks.
 */
export async function draftTypeForRecording(options: { transport: Transport; server: string; value: string; mirror: MirrorStore | null }): Promise<EventTypeForRecording> {
  const { fetchDraft, fetchEventType } = await import('../../sync/usage/remote.js');
  const { transport, server, value } = options;
  const current = await fetchEventType(transport, server, value);
  if (!current) throw new UserFacingError(`no v2 event type "${value}" on ${server}`, 'check the value (`fieldops types list`)');
  const draft = await fetchDraft(transport, server, current.value);
  if (!draft) throw new UserFacingError(`the event type "${current.value}" has no draft on ${server}`, `store one with \`fieldops schema draft ${current.value} FILE\`, or validate against the current schema without --draft`);
  const record: MirrorItem['record'] = { ...current.record, id: current.id ?? current.value, value: current.value, schema: draft.schema };
  const item: MirrorItem = {
    id: record.id, value: current.value, display: String(record.display ?? current.value), ordernum: null,
    isActive: record.is_active !== false, updatedAt: null, record,
  };
  const mirror = options.mirror;
  const store = {
    itemsByValue: async (resource: string) => (resource === 'event_types' ? [item] : []),
    items: async (resource: 'choices') => (mirror && resource === 'choices' ? mirror.items('choices') : []),
  } as unknown as MirrorStore;
  return eventTypeForRecording(store, current.value);
}
