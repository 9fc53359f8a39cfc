/**
 * A small KML 2.2 writer (issue 27): placemarks with points and line strings, in folders, and
 * network links (the KML feed's root). Shared by the server's `subjects/kml` and the CLI's
 * offline export; imports nothing of ours. Every text is escaped here and nowhere else.
 * Coordinates are WGS84 longitude,latitude (KML's order).
 */

export interface KmlPoint {
  longitude: number;
  latitude: number;
}

export type KmlGeometry = { type: 'Point'; at: KmlPoint } | { type: 'LineString'; points: readonly KmlPoint[] };

export interface KmlPlacemark {
  name: string;
  description?: string;
  /** When the placemark happened (a point: its time); an ISO string. */
  when?: string;
  /** A line string's times, one per point (KML's TimeSpan is written from the first and last). */
  span?: { begin: string; end: string };
  geometry: KmlGeometry;
  /** Shown in the viewer's data table: ExtendedData. */
  data?: Record<string, string | number | boolean | null>;
}

export interface KmlFolder {
  name: string;
  placemarks: readonly KmlPlacemark[];
}

export interface KmlNetworkLink {
  name: string;
  href: string;
  /** Seconds between refreshes (refreshMode onInterval); none: fetched once. */
  refreshSeconds?: number;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text and attribute values: the five XML entities, and characters XML 1.0 cannot hold dropped. */
export function escapeXml(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A coordinate that is not a finite number would make the document unreadable: refused here. */
function coordinate(p: KmlPoint): string {
  const longitude = Number(p.longitude), latitude = Number(p.latitude);
  if (!Number.isFinite(longitude) || !Number.isFinite(latitude)) throw new RangeError(`not a KML coordinate: ${String(p.longitude)},${String(p.latitude)}`);
  return `${longitude},${latitude}`;
}

function geometry(g: KmlGeometry): string {
  if (g.type === 'Point') return `<Point><coordinates>${coordinate(g.at)}</coordinates></Point>`;
  return `<LineString><tessellate>1</tessellate><coordinates>${g.points.map(coordinate).join(' ')}</coordinates></LineString>`;
}

export function placemark(p: KmlPlacemark): string {
  const parts = [`<Placemark><name>${escapeXml(p.name)}</name>`];
  if (p.description !== undefined) parts.push(`<description>${escapeXml(p.description)}</description>`);
  // KML allows one time primitive per feature: a span wins over a time stamp.
  if (p.when !== undefined && !p.span) parts.push(`<TimeStamp><when>${escapeXml(p.when)}</when></TimeStamp>`);
  if (p.span) parts.push(`<TimeSpan><begin>${escapeXml(p.span.begin)}</begin><end>${escapeXml(p.span.end)}</end></TimeSpan>`);
  if (p.data && Object.keys(p.data).length > 0) {
    parts.push('<ExtendedData>');
    for (const [key, value] of Object.entries(p.data)) parts.push(`<Data name="${escapeXml(key)}"><value>${escapeXml(value === null ? '' : String(value))}</value></Data>`);
    parts.push('</ExtendedData>');
  }
  parts.push(geometry(p.geometry), '</Placemark>');
  return parts.join('');
}

export const KML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document>';
export const KML_TAIL = '</Document></kml>\n';

/** A document's opening, with its name (a streamed document: head, folders, then KML_TAIL). */
export const kmlHead = (name: string) => `${KML_HEAD}<name>${escapeXml(name)}</name>`;

/** One folder, whole. */
export function kmlFolder(folder: KmlFolder): string {
  return `<Folder><name>${escapeXml(folder.name)}</name>${folder.placemarks.map(placemark).join('')}</Folder>`;
}

/** The pieces of a document, in order: a caller may stream them one by one. */
export function* kmlDocument(name: string, folders: Iterable<KmlFolder>): Generator<string> {
  yield kmlHead(name);
  for (const folder of folders) yield kmlFolder(folder);
  yield KML_TAIL;
}

/** The same from an async source of folders (the server streams subjects as it reads them). */
export async function* kmlDocumentAsync(name: string, folders: AsyncIterable<KmlFolder>): AsyncGenerator<string> {
  yield kmlHead(name);
  for await (const folder of folders) yield kmlFolder(folder);
  yield KML_TAIL;
}

/** A document of network links (the KML feed's root: each link fetches a document). */
export function kmlNetworkLinks(name: string, links: readonly KmlNetworkLink[]): string {
  const body = links.map((link) => {
    const refresh = link.refreshSeconds ? `<refreshMode>onInterval</refreshMode><refreshInterval>${link.refreshSeconds}</refreshInterval>` : '';
    return `<NetworkLink><name>${escapeXml(link.name)}</name><Link><href>${escapeXml(link.href)}</href>${refresh}</Link></NetworkLink>`;
  });
  return `${KML_HEAD}<name>${escapeXml(name)}</name>${body.join('')}${KML_TAIL}`;
}
