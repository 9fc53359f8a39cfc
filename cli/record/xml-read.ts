/**
 * What the saxes readers of track files (GPX, KML) share: line and column of offsets, and the
 * first syntax error as a problem at its place, in the wording of the earlier reader.
 */
import type { SaxesParser } from 'saxes';

export interface XmlProblem {
  line: number;
  column: number;
  message: string;
}

/** Thrown from the error handler to stop at the first error. */
export class Stop extends Error {}

/** Line and column (1-based, in UTF-16 code units like the old reader) of offsets read in order. */
export class Places {
  private offset = 0;
  private line = 1;
  private lineStart = 0;
  constructor(private readonly text: string) {}
  at(offset: number): { line: number; column: number } {
    if (offset < this.offset) return this.rescan(offset);
    const { text } = this;
    for (let i = this.offset; i < offset; i++) {
      const c = text.charCodeAt(i);
      // XML line ends: \n, \r\n (one), lone \r.
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
        this.line++;
        this.lineStart = i + 1;
      }
    }
    this.offset = offset;
    return { line: this.line, column: offset - this.lineStart + 1 };
  }
  private rescan(offset: number) {
    this.offset = 0;
    this.line = 1;
    this.lineStart = 0;
    return this.at(offset);
  }
}

/**
 * The place and message of saxes' error: its message without its own `line:column: ` prefix,
 * with the wording of the earlier reader where saxes is vaguer (tag mismatch, entity, root).
 */
export function xmlProblem(text: string, places: Places, parser: SaxesParser, raw: string, lastClosed: string): XmlProblem {
  let message = raw.replace(/^\d+:\d+: /, '');
  const position = parser.position;
  // saxes reports once the offending character is read: the column of that character.
  let at = { line: parser.line, column: Math.max(1, parser.columnIndex) };
  if (message === 'unexpected close tag.') {
    const start = text.lastIndexOf('</', position - 1);
    const close = /^<\/([^\s>]*)/.exec(text.slice(start, position))?.[1] ?? '';
    message = `Opening and ending tag mismatch: "${lastClosed}" != "${close}"`;
    if (start >= 0) at = places.at(start);
  } else if (message === 'undefined entity.') {
    const start = text.lastIndexOf('&', position - 1);
    message = `entity not found:${text.slice(start, position)} (entities declared in a DOCTYPE are not expanded)`;
    if (start >= 0) at = places.at(start);
  } else if (message === 'malformed character entity.' || message === 'disallowed character in entity name.' || message === 'empty entity name.') {
    const start = text.lastIndexOf('&', position - 1);
    if (start >= 0) at = places.at(start);
  } else if (message === 'documents may contain only one root.') {
    const start = text.lastIndexOf('<', position - 1);
    if (start >= 0) at = places.at(start);
  } else if (message === 'document must contain a root element.') {
    message = 'missing root element';
  }
  return { line: at.line, column: at.column, message: `not valid XML: ${message}` };
}

/**
 * Feeds the whole text to `parser` and stops at its first error, recorded as a problem at its
 * place (one problem is enough: the import refuses the file). Returns the problems found.
 */
export function readAll(parser: SaxesParser, text: string, places: Places, lastClosed: () => string): XmlProblem[] {
  const problems: XmlProblem[] = [];
  parser.on('error', (error) => {
    problems.push(xmlProblem(text, places, parser, error.message, lastClosed()));
    throw new Stop();
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
  return problems;
}
