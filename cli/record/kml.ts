/**
 * Points of a KML file, read with saxes as the GPX reader reads GPX (streaming, no tree, no
 * entity expansion, nesting on a stack, the caller bounding the size: MAX_KML_BYTES):
 *
 * - a Placemark's `<Point><coordinates>`: one point, at the Placemark's `<TimeStamp><when>`;
 * - a Placemark's `<LineString><coordinates>`: one point per tuple. KML 2.2 gives a line no
 *   per-point time, so these points have none (the import reports each: use gx:Track);
 * - `<gx:Track>` (and KML 2.3's `<Track>`, inside a MultiTrack too): its i-th `<when>` is the
 *   time of its i-th `<gx:coord>` ("lon lat [alt]").
 *
 * Coordinates are longitude,latitude[,altitude] (KML's order); the altitude is kept as the
 * elevation. Each point keeps the line and column of its `<gx:coord>` or `<coordinates>`, or of
 * its tuple inside a `<coordinates>` written without entities. A point that repeats the one
 * before it (same time and position) is read once: `fieldops export tracks --format kml` starts
 * each placemark of a long track with the last point of the one before, so the line is unbroken.
 */
import { SaxesParser } from 'saxes';
import { MAX_GPX_BYTES, type GpxPoint } from './gpx.js';
import { Places, readAll, type XmlProblem } from './xml-read.js';

/** The same bound as GPX: one field day's track in either format. */
export const MAX_KML_BYTES = MAX_GPX_BYTES;

export type KmlFilePoint = GpxPoint;

interface Place {
  line: number;
  column: number;
}

interface Pending {
  place: Place;
  latitude: number;
  longitude: number;
  elevation: number | null;
  /** undefined: the Placemark's TimeStamp; null: none (a LineString's point). */
  time: string | null | undefined;
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** Elements whose text is read, by their parent. */
const CAPTURED = new Map<string, readonly string[]>([['when', ['TimeStamp', 'Track']], ['coord', ['Track']], ['coordinates', ['Point', 'LineString']]]);

export function parseKml(text: string): { points: KmlFilePoint[]; problems: XmlProblem[] } {
  const points: KmlFilePoint[] = [];
  const places = new Places(text);
  const parser = new SaxesParser({ position: true });
  const open: string[] = [];
  let pending: Pending[] = [];
  let placemarkTime: string | null = null;
  let track: { whens: string[]; coords: Array<{ text: string; place: Place }> } | null = null;
  let capture: { name: string; parent: string; start: number; place: Place } | null = null;
  let captured = '';
  let lastClosed = '';

  const tagPlace = () => places.at(text.lastIndexOf('<', parser.position - 1));
  const onText = (value: string) => {
    captured += value;
  };

  parser.on('opentagstart', (tag) => {
    const name = localName(tag.name);
    const parent = open[open.length - 1] ?? '';
    open.push(name);
    if (name === 'Placemark') placemarkTime = null;
    else if (name === 'Track') track = { whens: [], coords: [] };
    if (capture === null && CAPTURED.get(name)?.includes(parent)) {
      capture = { name, parent, start: -1, place: tagPlace() };
      captured = '';
      parser.on('text', onText);
    }
  });
  parser.on('opentag', () => {
    // The text starts after the opening tag's `>`.
    if (capture !== null && capture.start < 0 && open.length > 0 && open[open.length - 1] === capture.name) capture.start = parser.position;
  });
  parser.on('cdata', (value) => {
    if (capture !== null) captured += value;
  });
  parser.on('closetag', (tag) => {
    lastClosed = tag.name;
    const name = open.pop() ?? '';
    const parent = open[open.length - 1] ?? '';
    if (capture !== null && name === capture.name && parent === capture.parent) {
      const value = captured.trim();
      const at = capture;
      capture = null;
      captured = '';
      parser.off('text');
      if (name === 'when' && parent === 'TimeStamp') placemarkTime = value;
      else if (name === 'when') track?.whens.push(value);
      else if (name === 'coord') track?.coords.push({ text: value, place: at.place });
      else pending.push(...tuples(text, places, at, parser.position, value, parent === 'Point' ? undefined : null));
      return;
    }
    if (name === 'Track' && track !== null) {
      const { whens, coords } = track;
      for (const [i, coord] of coords.entries()) {
        const [longitude, latitude, elevation] = numbers(coord.text.split(/\s+/));
        pending.push({ place: coord.place, latitude, longitude, elevation, time: whens[i] ?? null });
      }
      track = null;
    } else if (name === 'Placemark' || (open.length === 0 && pending.length > 0)) {
      settle();
    }
  });
  const settle = () => {
    for (const p of pending) {
      const time = p.time === undefined ? placemarkTime : p.time;
      const point: KmlFilePoint = { line: p.place.line, column: p.place.column, latitude: p.latitude, longitude: p.longitude, time: time === '' ? null : time, elevation: p.elevation };
      const before = points[points.length - 1];
      if (before && point.time !== null && before.time === point.time && before.latitude === point.latitude && before.longitude === point.longitude) continue;
      points.push(point);
    }
    pending = [];
    placemarkTime = null;
  };
  const problems = readAll(parser, text, places, () => lastClosed);
  return { points: problems.length > 0 ? [] : points, problems };
}

/** "lon" "lat" ["alt"] as numbers (NaN where absent or not a number: the import reports it). */
function numbers(parts: string[]): [number, number, number | null] {
  const n = (raw: string | undefined) => (raw === undefined || raw.trim() === '' ? NaN : Number(raw));
  const elevation = n(parts[2]);
  return [n(parts[0]), n(parts[1]), Number.isFinite(elevation) ? elevation : null];
}

/**
 * The tuples of a `<coordinates>` ("lon,lat[,alt]" separated by white space), each at its own
 * place when the element's text is plain in the file (no entity, CDATA or comment); otherwise
 * at the element's.
 */
function tuples(text: string, places: Places, at: { start: number; place: Place }, end: number, value: string, time: null | undefined): Pending[] {
  const close = text.lastIndexOf('</', end - 1);
  const raw = at.start >= 0 && close > at.start ? text.slice(at.start, close) : '';
  const plain = raw !== '' && !/[<&]/.test(raw);
  const source = plain ? raw : value;
  const found: Pending[] = [];
  // NOTE: "lon, lat" (a space after the comma) is common in hand-written files: read as one tuple.
  for (const match of source.replace(/,[ \t]+/g, (m) => ','.padEnd(m.length, '\u0000')).matchAll(/[^\s]+/g)) {
    const [longitude, latitude, elevation] = numbers(match[0].replace(/\u0000/g, '').split(','));
    found.push({ place: plain ? places.at(at.start + match.index!) : at.place, latitude, longitude, elevation, time });
  }
  return found;
}
