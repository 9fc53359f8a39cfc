/**
 * Track points of a GPX file (`<trkpt lat lon>` with `<time>` and optional `<ele>`; route and
 * way points too). A small scanner, not an XML parser: GPX from devices is flat and regular, and
 * this stays linear in the input (the caller bounds its size). Each point keeps its line.
 */
export interface GpxPoint {
  line: number;
  latitude: number;
  longitude: number;
  time: string | null;
  elevation: number | null;
}

const POINT = /<(trkpt|rtept|wpt)\b([^>]*?)(\/>|>([\s\S]*?)<\/\1\s*>)/g;
const attribute = (attributes: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*["']([^"']*)["']`).exec(attributes)?.[1];
const child = (body: string, name: string) => new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`).exec(body)?.[1];

export function parseGpx(text: string): GpxPoint[] {
  const points: GpxPoint[] = [];
  let line = 1;
  let scanned = 0;
  for (const match of text.matchAll(POINT)) {
    for (let i = scanned; i < match.index; i++) if (text.charCodeAt(i) === 10) line++;
    scanned = match.index;
    const attributes = match[2] ?? '';
    const body = match[4] ?? '';
    const ele = child(body, 'ele');
    points.push({
      line,
      latitude: Number(attribute(attributes, 'lat') ?? NaN),
      longitude: Number(attribute(attributes, 'lon') ?? NaN),
      time: child(body, 'time') ?? null,
      elevation: ele === undefined || ele === '' || !Number.isFinite(Number(ele)) ? null : Number(ele),
    });
  }
  return points;
}
