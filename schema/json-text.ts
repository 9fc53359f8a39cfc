/**
 * A small JSON parser that remembers where every value starts, so that issues (JSON Pointers)
 * can be reported as file:line:column by the CLI linter, and syntax errors carry a position.
 * Strict RFC 8259 JSON (a leading BOM is skipped). Lines and columns are 1-based; a column
 * counts UTF-16 code units, a tab is one column; `\r\n`, `\n` and a lone `\r` each end a line.
 */
import { schemaIssue, type SchemaIssue } from './issues.js';
import { joinPointer, parsePointer, setKey, type JsonObject } from './json-pointer.js';

export interface SourcePosition {
  line: number;
  column: number;
}

export interface ValueLocation {
  /** Offset of the first character of the value. */
  valueOffset: number;
  /** Offset of the opening quote of the member name, for object members. */
  keyOffset?: number;
}

export class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number, readonly position: SourcePosition) {
    super(`${message} at line ${position.line}, column ${position.column}`);
    this.name = 'JsonSyntaxError';
  }
}

/** Maps offsets to line/column for one text. */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    // NOTE: editors do not show a byte order mark, so it does not count as a column.
    if (text.charCodeAt(0) === 0xfeff) this.starts[0] = 1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) this.starts.push(i + 1);
    }
  }
  position(offset: number): SourcePosition {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.starts[lo] as number) + 1 };
  }
}

export interface ParsedJsonText {
  value: unknown;
  locations: Map<string, ValueLocation>;
  lines: LineIndex;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERALS: Array<[string, unknown]> = [['true', true], ['false', false], ['null', null]];

/** Parses `text`, recording the location of every value by JSON Pointer. Throws JsonSyntaxError. */
export function parseJsonWithLocations(text: string): ParsedJsonText {
  const lines = new LineIndex(text);
  const locations = new Map<string, ValueLocation>();
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (message: string, at = i): never => { throw new JsonSyntaxError(message, at, lines.position(at)); };
  const skip = (): void => {
    while (i < text.length) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else break;
    }
  };
  const readString = (): string => {
    const start = i;
    i++;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c < 0x20) fail('control character in string');
      i += c === 92 ? 2 : 1;
    }
    if (i >= text.length) fail('unterminated string', start);
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('invalid escape in string', start);
    }
  };
  const readValue = (pointer: string, keyOffset?: number): unknown => {
    skip();
    const location: ValueLocation = { valueOffset: i };
    if (keyOffset !== undefined) location.keyOffset = keyOffset;
    locations.set(pointer, location);
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: JsonObject = {};
      skip();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        skip();
        if (text[i] !== '"') fail('expected a member name in double quotes');
        const keyAt = i;
        const key = readString();
        skip();
        if (text[i] !== ':') fail('expected `:` after a member name');
        i++;
        setKey(obj, key, readValue(joinPointer(pointer, key), keyAt));
        skip();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return obj; }
        fail('expected `,` or `}` in an object');
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      skip();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(readValue(joinPointer(pointer, arr.length)));
        skip();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return arr; }
        fail('expected `,` or `]` in an array');
      }
    }
    if (c === '"') return readString();
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text);
    if (number) { i += number[0].length; return Number(number[0]); }
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, i)) { i += word.length; return value; }
    }
    return fail(i >= text.length ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
  };
  const value = readValue('');
  skip();
  if (i < text.length) fail('unexpected text after the JSON value');
  return { value, locations, lines };
}

/** `JSON.parse` with a `schema_parsing_error` issue (with line and column) instead of an exception. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; issue: SchemaIssue } {
  try {
    return { ok: true, value: parseJsonWithLocations(text).value };
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return {
      ok: false,
      issue: schemaIssue('schema_parsing_error', {
        message: `the document is not valid JSON: ${error.message}`,
        hints: ['fix the JSON syntax at the given position'],
        location: error.position,
      }),
    };
  }
}

export interface PointerLocation extends SourcePosition {
  /** Where the member name starts, for object members. */
  key?: SourcePosition;
  /** False when the pointer does not exist and the location is that of its deepest ancestor. */
  exact: boolean;
}

/** A locator for one text: parses once, answers many pointers (the CLI reports many issues per file). */
export function createPointerLocator(jsonText: string): (pointer: string) => PointerLocation | null {
  let parsed: ParsedJsonText;
  try {
    parsed = parseJsonWithLocations(jsonText);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return () => null;
    throw error;
  }
  return (pointer) => {
    let tokens: string[];
    try {
      tokens = parsePointer(pointer);
    } catch {
      return null;
    }
    for (let n = tokens.length; n >= 0; n--) {
      const location = parsed.locations.get(joinPointer('', ...tokens.slice(0, n)));
      if (!location) continue;
      const result: PointerLocation = { ...parsed.lines.position(location.valueOffset), exact: n === tokens.length };
      if (location.keyOffset !== undefined) result.key = parsed.lines.position(location.keyOffset);
      return result;
    }
    return null;
  };
}

/** Line and column (1-based) of the value at `pointer` in `jsonText`; null for unparsable text. */
export function locatePointer(jsonText: string, pointer: string): PointerLocation | null {
  return createPointerLocator(jsonText)(pointer);
}
