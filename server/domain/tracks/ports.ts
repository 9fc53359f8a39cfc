/**
 * Tracks and tracking exports (issue 27): read-only over observations, assignments
 * (subject_sources), subjects, their status, sources and providers. Every method is scoped to
 * the tenant given. Observations reach a subject through the assignments that cover their
 * recorded_at: a source assigned over [lower, upper) contributes its fixes in that range only.
 */

/** A subject as tracks and exports show it, with its latest position and radio state. */
export interface TrackSubject {
  id: string;
  name: string;
  subjectType: string;
  subjectSubtype: string;
  isActive: boolean;
  /** The track colour (`#RRGGBB`), when the subject has one. */
  hex: string | null;
  commonName: string | null;
  sex: string | null;
  lastPosition: { recordedAt: number; latitude: number; longitude: number; sourceId: string | null } | null;
  radioState: Record<string, unknown> | null;
  radioRecordedAt: number | null;
}

/** An assignment with its source, as exports list them. */
export interface TrackAssignment {
  id: string;
  subjectId: string;
  sourceId: string;
  rangeLower: number;
  rangeUpper: number | null;
  manufacturerId: string;
  sourceType: string;
  modelName: string;
  providerKey: string;
}

/** One source's fixes in [from, to). */
export interface TrackWindow {
  sourceId: string;
  from: number;
  to: number;
}

export interface TrackPoint {
  recordedAt: number;
  latitude: number;
  longitude: number;
}

/** An observation as the tracking-data export writes it (`additional`: the stored JSON text). */
export interface ExportObservation {
  id: string;
  recordedAt: number;
  latitude: number;
  longitude: number;
  additional: string;
}

export interface SubjectPageFilter {
  /** Only this subject (null: every subject of the tenant). */
  subjectId: string | null;
  includeInactive: boolean;
  /** Only subjects with a latest position. */
  positioned: boolean;
}

export interface TrackRepository {
  findSubject(tenantId: string, subjectId: string): Promise<TrackSubject | null>;
  /** Whether the tenant has this source. */
  sourceExists(tenantId: string, sourceId: string): Promise<boolean>;
  /**
   * Subjects in id order after `afterId` (keyset), at most `limit`: every list of subjects the
   * exports and feeds walk is read this way, never whole.
   */
  subjectsPage(tenantId: string, filter: SubjectPageFilter, afterId: string | null, limit: number): Promise<TrackSubject[]>;
  /** The assignments of these subjects (optionally of one source), by subject then range_lower. */
  assignmentsOf(tenantId: string, subjectIds: readonly string[], sourceId: string | null): Promise<TrackAssignment[]>;
  /**
   * Track points of the windows, newest first, at most `limit`: one indexed range read per window
   * (observations' unique (source_id, recorded_at) index), merged.
   */
  trackPoints(tenantId: string, windows: readonly TrackWindow[], limit: number): Promise<TrackPoint[]>;
  /** A window's fixes in time order with recorded_at > `after` (keyset), at most `limit`. */
  observationBatch(tenantId: string, window: TrackWindow, after: number | null, limit: number): Promise<ExportObservation[]>;
}
