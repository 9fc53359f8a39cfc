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
import { Places, readAll, type XmlProblem } from './xml-read.js';

export const MAX_GPX_BYTES = 16 * 1024 * 1024;

export interface GpxPoint {
  line: number;
  column: number;
  latitude: number;
  longitude: number;
  time: string | null;
  elevation: number | null;
}

export type GpxProblem = XmlProblem;

const POINTS = new Set(['trkpt', 'rtept', 'wpt']);
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

export function parseGpx(text: string): { points: GpxPoint[]; problems: GpxProblem[] } {
  const points: GpxPoint[] = [];
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
  const problems = readAll(parser, text, places, () => lastClosed);
  return { points: problems.length > 0 ? [] : points, problems };
}
