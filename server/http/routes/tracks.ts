import type { Services } from '../../app.js';
import { trackHandlers } from '../handlers/tracks.js';
import { trackSchemas } from '../schemas/tracks.js';
import type { Route } from './types.js';

/**
 * Tracks, last positions, the KML feed and the tracking exports (issue 27), under /api/v1.0.
 * Placed before the subject routes: `subjects/geojson` and `subjects/kml` win over `subjects/:id`.
 * Names starting `kml.` and `exports.` are files (raw in every profile, presentation/rules.ts).
 */
export function trackRoutes(services: Services): Route[] {
  const tracks = trackHandlers({ tracks: services.tracks, trustProxy: services.trustProxy });
  const v1 = (path: string) => [`/api/v1.0${path}`];
  return [
    { name: 'tracks.subject', method: 'GET', paths: v1('/subject/:id/tracks'), authenticate: true, schema: trackSchemas.subjectTrack, handler: tracks.subjectTrack },
    { name: 'tracks.source', method: 'GET', paths: v1('/subject/:id/source/:source/tracks'), authenticate: true, schema: trackSchemas.sourceTrack, handler: tracks.sourceTrack },
    { name: 'tracks.positions', method: 'GET', paths: v1('/subjects/geojson'), authenticate: true, schema: trackSchemas.positions, handler: tracks.positions },
    { name: 'kml.subjects', method: 'GET', paths: v1('/subjects/kml'), authenticate: true, schema: trackSchemas.kml, handler: tracks.kml },
    { name: 'kml.root', method: 'GET', paths: v1('/subjects/kml/root'), authenticate: true, schema: trackSchemas.kmlRoot, handler: tracks.kmlRoot },
    { name: 'exports.trackingdata', method: 'GET', paths: v1('/trackingdata/export'), authenticate: true, schema: trackSchemas.trackingData, handler: tracks.trackingData },
    { name: 'exports.trackingmetadata', method: 'GET', paths: v1('/trackingmetadata/export'), authenticate: true, schema: trackSchemas.trackingMetadata, handler: tracks.trackingMetadata },
  ];
}
