/**
 * A small RFC 4180 reader: quoted fields (with `""` escapes and line breaks inside), CRLF or LF,
 * a UTF-8 BOM ignored. Each record keeps the line it starts on, for `FILE:line:column` reports.
 * Linear in the input; the caller bounds the input's size.
 */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(message: string, readonly line: number) {
    super(message);
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let fields: string[] = [];
  let field = '';
  let start = line;
  let quoted = false;
  let atFieldStart = true;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
    fields = [];
    field = '';
    atFieldStart = true;
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      atFieldStart = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else {
      field += c;
      atFieldStart = false;
    }
  }
  if (quoted) throw new CsvSyntaxError('a quoted field is not closed', start);
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}
