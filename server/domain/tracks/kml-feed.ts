import { type KmlFolder, type KmlNetworkLink, type KmlPlacemark, kmlDocumentAsync, kmlNetworkLinks } from '../../../protocol/geo/kml.js';
import { toIso } from '../../db/time.js';
import type { SubjectTrack } from './formats.js';

/**
 * The KML feed (issue 27), written with protocol/geo/kml.ts: `subjects/kml` is one folder per
 * subject with its track (a LineString, oldest to newest, with its time span) and its last
 * position (a Point at its time); `subjects/kml/root` is the file a viewer opens, a network link
 * to that document refreshed every REFRESH_SECONDS.
 */

export const REFRESH_SECONDS = 300;

export function subjectFolder({ subject, points }: SubjectTrack): KmlFolder {
  const placemarks: KmlPlacemark[] = [];
  const data = { subject_id: subject.id, subject_type: subject.subjectType, subject_subtype: subject.subjectSubtype };
  if (points.length > 1) {
    // Stored newest first; a KML line is drawn in time order.
    const ordered = [...points].reverse();
    placemarks.push({
      name: `${subject.name} track`,
      span: { begin: toIso(ordered[0]!.recordedAt), end: toIso(ordered[ordered.length - 1]!.recordedAt) },
      geometry: { type: 'LineString', points: ordered },
      data,
    });
  }
  const at = subject.lastPosition;
  if (at) placemarks.push({ name: subject.name, when: toIso(at.recordedAt), geometry: { type: 'Point', at }, data });
  return { name: subject.name, placemarks };
}

export async function* subjectsKml(name: string, tracks: AsyncIterable<SubjectTrack>): AsyncGenerator<string> {
  async function* folders(): AsyncGenerator<KmlFolder> {
    for await (const track of tracks) yield subjectFolder(track);
  }
  yield* kmlDocumentAsync(name, folders());
}

/** The feed's root: links to the subjects document (absolute URLs, no credentials in them). */
export function kmlRootDocument(name: string, href: string): string {
  const links: KmlNetworkLink[] = [{ name: 'Subjects', href, refreshSeconds: REFRESH_SECONDS }];
  return kmlNetworkLinks(name, links);
}
