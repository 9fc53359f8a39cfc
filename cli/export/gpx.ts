/**
 * A small GPX 1.1 writer, in pieces a caller streams: tracks (`<trk>` with one `<trkseg>` of
 * `<trkpt>`) and way points (`<wpt>`). Every text and attribute is escaped (protocol/geo/kml.ts's
 * `escapeXml`: the five entities, characters XML 1.0 cannot hold dropped); numbers are written
 * only when finite; times as UTC ISO 8601 (GPX's xsd:dateTime), milliseconds kept.
 */
import { escapeXml } from '../../protocol/geo/kml.js';

export const GPX_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="fieldops" xmlns="http://www.topografix.com/GPX/1/1">\n';
export const GPX_TAIL = '</gpx>\n';

export interface GpxWritePoint {
  latitude: number;
  longitude: number;
  time?: string | null;
  elevation?: number | null;
}

const finite = (n: number) => Number.isFinite(n);

/** A time as GPX writes it (UTC); an unreadable time is left out rather than written wrong. */
export function gpxTime(time: string | null | undefined): string | null {
  if (!time) return null;
  const at = Date.parse(time);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

function body(p: GpxWritePoint, extra: string): string {
  const parts: string[] = [];
  if (p.elevation !== null && p.elevation !== undefined && finite(p.elevation)) parts.push(`<ele>${p.elevation}</ele>`);
  const time = gpxTime(p.time);
  if (time) parts.push(`<time>${time}</time>`);
  return parts.join('') + extra;
}

/** One track point; null when its position is not a number (nothing is written for it). */
export function trackPoint(p: GpxWritePoint): string | null {
  if (!finite(p.latitude) || !finite(p.longitude)) return null;
  return `<trkpt lat="${p.latitude}" lon="${p.longitude}">${body(p, '')}</trkpt>\n`;
}

export const trackStart = (name: string, description?: string) =>
  `<trk><name>${escapeXml(name)}</name>${description ? `<desc>${escapeXml(description)}</desc>` : ''}<trkseg>\n`;
export const TRACK_END = '</trkseg></trk>\n';

/** A way point (an event, a subject's last position); null without a position. */
export function wayPoint(p: GpxWritePoint & { name: string; description?: string | null; type?: string | null }): string | null {
  if (!finite(p.latitude) || !finite(p.longitude)) return null;
  let extra = `<name>${escapeXml(p.name)}</name>`;
  if (p.description) extra += `<desc>${escapeXml(p.description)}</desc>`;
  if (p.type) extra += `<type>${escapeXml(p.type)}</type>`;
  return `<wpt lat="${p.latitude}" lon="${p.longitude}">${body(p, extra)}</wpt>\n`;
}
