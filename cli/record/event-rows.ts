/**
 * Datasheet rows into event inputs. CSV: the header is `time,latitude,longitude,priority,state`
 * (any order, any of them optional) plus one column per schema field; a multi-choice cell holds
 * values separated by `;`; a choice may be given by its value or its display (case-insensitive);
 * numbers, booleans and JSON fields (collections, locations) are converted by the field's kind.
 * JSON / NDJSON: one event object per record (`{time, location, priority, state, event_details}`).
 */
import { createPointerLocator, parseJsonText } from '../../schema/index.js';
import { parseCsv } from './csv.js';
import type { EventInput, RecordIssue } from './event-record.js';
import type { EventTypeForRecording, FieldSpec } from './event-type.js';

export const BASE_COLUMNS = ['time', 'latitude', 'longitude', 'priority', 'state', 'title'] as const;

export interface SourceRow {
  /** 1-based record number (data rows for CSV, records for JSON/NDJSON). */
  row: number;
  line: number;
  input: EventInput;
  /** Column (1-based) of each input name, for reports. */
  columns: Map<string, number>;
  issues: RecordIssue[];
  /** For JSON sources: where a pointer into this record is in the file. */
  locate?: (pointer: string) => { line: number; column: number } | null;
}

export function readRows(format: 'csv' | 'json' | 'ndjson', text: string, type: EventTypeForRecording): { rows: SourceRow[]; fileIssues: Array<RecordIssue & { line: number }> } {
  if (format === 'csv') return csvRows(text, type);
  return jsonRows(format, text);
}

function csvRows(text: string, type: EventTypeForRecording) {
  const records = parseCsv(text);
  const fileIssues: Array<RecordIssue & { line: number }> = [];
  const header = records.shift();
  if (!header) return { rows: [], fileIssues: [{ line: 1, field: '', pointer: '', code: 'empty_file', message: 'the file has no header row', hints: ['the first row names the columns: time,latitude,longitude,... then one per field'] }] };
  const names = header.fields.map((f) => f.trim());
  const fields = new Map(type.fields.map((f) => [f.name, f]));
  for (const name of names) {
    if (!(BASE_COLUMNS as readonly string[]).includes(name) && !fields.has(name)) {
      fileIssues.push({ line: header.line, field: name, pointer: '', code: 'unknown_column', message: `column "${name}" is not a field of ${type.value}`, hints: [`fields: ${type.fields.map((f) => f.name).join(', ') || '(none)'}`] });
    }
  }
  const columns = new Map(names.map((n, i) => [n, i + 1]));
  const rows = records.map((record, index): SourceRow => {
    const cell = (name: string) => {
      const at = columns.get(name);
      return at === undefined ? '' : (record.fields[at - 1] ?? '').trim();
    };
    const issues: RecordIssue[] = [];
    const input: EventInput = { details: {} };
    if (record.fields.length !== names.length) {
      issues.push({ field: '', pointer: '', code: 'column_count', message: `row has ${record.fields.length} cells, the header ${names.length}`, hints: ['quote cells that contain commas'] });
    }
    if (cell('time')) input.time = cell('time');
    else issues.push({ field: 'time', pointer: '/time', code: 'required', message: 'time is empty', hints: ['an ISO 8601 date-time with an offset, e.g. 2026-11-20T10:00:00+00:00'] });
    const lat = cell('latitude');
    const lon = cell('longitude');
    if (lat || lon) input.location = { latitude: lat ? Number(lat) : NaN, longitude: lon ? Number(lon) : NaN };
    if (cell('priority')) input.priority = Number(cell('priority'));
    if (cell('state')) input.state = cell('state');
    if (cell('title')) input.title = cell('title');
    for (const name of names) {
      const spec = fields.get(name);
      const raw = cell(name);
      if (!spec || raw === '') continue;
      const converted = convertCell(spec, raw);
      if ('error' in converted) issues.push({ field: name, pointer: `/event_details/${name}`, code: 'invalid_cell', message: converted.error, hints: converted.hints });
      else input.details[name] = converted.value;
    }
    return { row: index + 1, line: record.line, input, columns, issues };
  });
  return { rows, fileIssues };
}

type Converted = { value: unknown } | { error: string; hints: string[] };

export function convertCell(spec: FieldSpec, raw: string): Converted {
  const choice = (text: string): Converted => {
    const lower = text.trim().toLowerCase();
    const found = spec.options.find((o) => o.value.toLowerCase() === lower) ?? spec.options.find((o) => o.display.toLowerCase() === lower);
    if (found || spec.options.length === 0) return { value: found ? found.value : text.trim() };
    return { error: `"${text.trim()}" is not a choice of ${spec.name}`, hints: [`one of: ${spec.options.map((o) => `${o.value} (${o.display})`).join(', ')}`] };
  };
  switch (spec.kind) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (!Number.isFinite(n) || (spec.kind === 'integer' && !Number.isInteger(n))) return { error: `"${raw}" is not ${spec.kind === 'integer' ? 'a whole number' : 'a number'}`, hints: [] };
      return { value: n };
    }
    case 'boolean':
      if (/^(true|yes|1)$/i.test(raw)) return { value: true };
      if (/^(false|no|0)$/i.test(raw)) return { value: false };
      return { error: `"${raw}" is not true or false`, hints: ['use true/false, yes/no or 1/0'] };
    case 'choice':
      return choice(raw);
    case 'multichoice': {
      const values: unknown[] = [];
      for (const part of raw.split(';').filter((p) => p.trim() !== '')) {
        const one = choice(part);
        if ('error' in one) return { error: one.error, hints: [...one.hints, 'separate several choices with ";"'] };
        values.push(one.value);
      }
      return { value: values };
    }
    case 'json':
    case 'location':
      try {
        return { value: JSON.parse(raw) };
      } catch {
        return { error: `"${raw.slice(0, 40)}" is not JSON`, hints: [spec.kind === 'location' ? 'write {"latitude": -1.2, "longitude": 36.8}' : 'a collection field takes JSON, e.g. [{"count": 2}]'] };
      }
    default:
      return { value: raw };
  }
}

function jsonRows(format: 'json' | 'ndjson', text: string) {
  const fileIssues: Array<RecordIssue & { line: number }> = [];
  const records: Array<{ line: number; value: unknown; locate?: SourceRow['locate'] }> = [];
  if (format === 'ndjson') {
    text.split('\n').forEach((lineText, index) => {
      if (lineText.trim() === '') return;
      try {
        records.push({ line: index + 1, value: JSON.parse(lineText) });
      } catch (error) {
        fileIssues.push({ line: index + 1, field: '', pointer: '', code: 'invalid_json', message: `not JSON: ${(error as Error).message}`, hints: ['one JSON object per line'] });
      }
    });
  } else {
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      fileIssues.push({ line: parsed.issue.location?.line ?? 1, field: '', pointer: '', code: 'invalid_json', message: parsed.issue.message, hints: parsed.issue.hints });
    } else {
      const value = parsed.value;
      const locate = createPointerLocator(text);
      const base = Array.isArray(value) ? '' : value && typeof value === 'object' && Array.isArray((value as { results?: unknown }).results) ? '/results' : null;
      const list = base === null ? [value] : base === '' ? (value as unknown[]) : (value as { results: unknown[] }).results;
      const prefix = (i: number) => (base === null ? '' : `${base}/${i}`);
      list.forEach((v, i) => records.push({ line: locate(prefix(i))?.line ?? 1, value: v, locate: (pointer) => locate(prefix(i) + pointer) }));
    }
  }
  const rows = records.map(({ line, value, locate }, index): SourceRow => {
    const issues: RecordIssue[] = [];
    const v = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
    if (v !== value) issues.push({ field: '', pointer: '', code: 'not_an_object', message: 'each record is an event object', hints: ['{"time": ..., "location": {...}, "event_details": {...}}'] });
    const input: EventInput = { details: (v.event_details && typeof v.event_details === 'object' ? v.event_details : {}) as Record<string, unknown> };
    if (typeof v.time === 'string') input.time = v.time;
    else issues.push({ field: 'time', pointer: '/time', code: 'required', message: 'time is missing', hints: ['an ISO 8601 date-time with an offset'] });
    const loc = v.location as { latitude?: unknown; longitude?: unknown } | null | undefined;
    if (loc) input.location = { latitude: Number(loc.latitude), longitude: Number(loc.longitude) };
    if (v.priority !== undefined) input.priority = Number(v.priority);
    if (typeof v.state === 'string') input.state = v.state;
    if (typeof v.title === 'string') input.title = v.title;
    return { row: index + 1, line, input, columns: new Map(), issues, locate };
  });
  return { rows, fileIssues };
}
