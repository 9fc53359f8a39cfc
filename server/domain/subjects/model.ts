import type { SensorProvider, SensorSource, Subject, SubjectStatus } from '../model.js';

/**
 * The subject side's records beyond server/domain/model.ts (issue 27): a subject's descriptive
 * fields, sources and providers with what their clients write, and assignments (a source
 * tracking a subject over a time range).
 */

/** The descriptive fields of a subject the original's clients read and write. */
export interface SubjectProfile {
  commonName: string | null;
  sex: string | null;
  region: string | null;
  country: string | null;
  /** A colour (`#RRGGBB`): the subject's track colour (`stroke`). */
  hex: string | null;
}

/** A subject as the subject side reads it: the model's fields and its profile. */
export type SubjectRecord = Subject & SubjectProfile;

/** A subject with its latest position and radio state, its groups (names and ids). */
export interface SubjectView {
  subject: SubjectRecord;
  status: SubjectStatus | null;
  groups: string[];
  /** The source of the subject's open assignment (the newest, when several), through which messages reach it. */
  device?: { sourceId: string; provider: string } | null;
}

export interface SourceRecord extends SensorSource {
  additional: Record<string, unknown>;
  /** The provider's key (how the original names a source's provider). */
  providerKey: string;
}

export interface ProviderRecord extends SensorProvider {
  displayName: string;
  additional: Record<string, unknown>;
}

/** A source assigned to a subject over [rangeLower, rangeUpper) (upper null: open ended). */
export interface Assignment {
  id: string;
  tenantId: string;
  subjectId: string;
  sourceId: string;
  rangeLower: number;
  rangeUpper: number | null;
  additional: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** The `subjects` list's filters; `bbox` is [west, south, east, north] on the last position. */
export interface SubjectListFilter {
  includeInactive: boolean;
  updatedSince: number | null;
  bbox: [number, number, number, number] | null;
  groupId: string | null;
  /** Case-insensitive substring of the name. */
  name: string | null;
}

export interface SubjectPatch {
  name?: string;
  subjectType?: string;
  subjectSubtype?: string;
  isActive?: boolean;
  additional?: Record<string, unknown>;
  commonName?: string | null;
  sex?: string | null;
  region?: string | null;
  country?: string | null;
  hex?: string | null;
}

export interface SourcePatch {
  manufacturerId?: string;
  sourceType?: string;
  modelName?: string;
  additional?: Record<string, unknown>;
}
