import type { Clock } from './db/time.js';
import type { Store } from './domain/ports.js';
import { SourceService } from './domain/subjects/sources.js';
import { TrackService } from './domain/tracks/service.js';
import { EventExportService } from './domain/events/export.js';
import { MessageService } from './domain/messages/service.js';
import { FeatureService } from './domain/features/service.js';

/** The subject side's services (issue 27): sources and assignments, tracks and tracking exports, the events export, messages, feature sets. */
export function openSubjectSide(deps: { store: Store; clock: Clock }) {
  return {
    sources: new SourceService(deps),
    tracks: new TrackService(deps),
    eventExports: new EventExportService(deps),
    messages: new MessageService(deps),
    features: new FeatureService(deps),
  };
}
