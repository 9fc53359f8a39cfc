/**
 * Points of a GPX file (`<trkpt lat lon>` with `<time>` and optional `<ele>`; route and way
 * points too), read with saxes: a maintained, streaming, non-validating XML parser. No tree is
 * built: memory is the points kept (plus the text of one `<time>`/`<ele>`), time is linear.
 * Each point keeps the line and column of its `<`; the first syntax error stops the read and is
 * reported at its place (one problem: the import refuses the file anyway).
 *
 * NOTE: not @tmcw/togeojson's `gpx()`: it drops points without a valid lat/lon and segments of
 * one point, and keeps times only of the points that have one (the times no longer line up
 * with the coordinates), which would hide exactly the points an import must report.
 *
 * Bounded: saxes keeps a DOCTYPE's internal subset as text and never expands its entities (nor
 * external ones): a reference to one is "entity not found", so a "billion laughs" file costs its
 * own size; open elements are a stack, not recursion (deep nesting cannot overflow); the caller
 * bounds the input's size (MAX_GPX_BYTES), which bounds any one attribute or text too.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export const MAX_GPX_BYTES = 16 * 1024 * 1024;

export interface GpxPoint {
  line: number;
  column: number;
  latitude: number;
  longitude: number;
  time: string | null;
  elevation: number | null;
}

export interface GpxProblem {
  line: number;
  column: number;
  message: string;
}

const POINTS = new Set(['trkpt', 'rtept', 'wpt']);
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** Thrown from the error handler to stop at the first error. */
class Stop extends Error {}

/** Line and column (1-based, in UTF-16 code units like the old reader) of offsets read in order. */
class Places {
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

export function parseGpx(text: string): { points: GpxPoint[]; problems: GpxProblem[] } {
  const points: GpxPoint[] = [];
  const problems: GpxProblem[] = [];
  const places = new Places(text);
  const parser = new SaxesParser({ position: true });
  let depth = 0;
  let current: { point: GpxPoint; depth: number; time: string | null; ele: string | null } | null = null;
  let capture: 'time' | 'ele' | null = null;
  let captured = '';
  let lastClosed = '';

  parser.on('opentagstart', (tag) => {
    depth++;
    if (current === null) {
      if (!POINTS.has(localName(tag.name))) return;
      // The tag's `<` is the last one before the parser's position (a name holds no `<`).
      const { line, column } = places.at(text.lastIndexOf('<', parser.position - 1));
      current = { point: { line, column, latitude: NaN, longitude: NaN, time: null, elevation: null }, depth, time: null, ele: null };
    } else if (depth === current.depth + 1 && capture === null) {
      const name = localName(tag.name);
      if ((name === 'time' && current.time === null) || (name === 'ele' && current.ele === null)) {
        capture = name;
        captured = '';
        parser.on('text', onText);
      }
    }
  });
  parser.on('opentag', (tag) => {
    if (current === null || depth !== current.depth) return;
    const attributes = (tag as SaxesTagPlain).attributes;
    const coordinate = (name: string) => {
      const raw = attributes[name]?.trim() ?? '';
      return raw === '' ? NaN : Number(raw);
    };
    current.point.latitude = coordinate('lat');
    current.point.longitude = coordinate('lon');
  });
  // Text is collected (by saxes too) only inside a point's <time> or <ele>.
  const onText = (value: string) => {
    captured += value;
  };
  parser.on('cdata', (value) => {
    if (capture !== null) captured += value;
  });
  parser.on('closetag', (tag) => {
    lastClosed = tag.name;
    if (current !== null) {
      if (capture !== null && depth === current.depth + 1) {
        current[capture] = captured.trim();
        parser.off('text');
        capture = null;
        captured = '';
      } else if (depth === current.depth) {
        const { point, time, ele } = current;
        point.time = time === null || time === '' ? null : time;
        point.elevation = ele === null || ele === '' || !Number.isFinite(Number(ele)) ? null : Number(ele);
        points.push(point);
        current = null;
      }
    }
    depth--;
  });
  parser.on('error', (error) => {
    problems.push(problem(text, places, parser, error.message, lastClosed));
    throw new Stop();
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
  return { points: problems.length > 0 ? [] : points, problems };
}

/**
 * The place and message of saxes' error: its message without its own `line:column: ` prefix,
 * with the wording of the earlier reader where saxes is vaguer (tag mismatch, entity, root).
 */
function problem(text: string, places: Places, parser: SaxesParser, raw: string, lastClosed: string): GpxProblem {
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
