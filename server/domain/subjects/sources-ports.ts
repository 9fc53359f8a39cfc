import type { Assignment, ProviderRecord, SourcePatch, SourceRecord, SubjectListFilter, SubjectPatch, SubjectRecord, SubjectView } from './model.js';

export interface PageWindow {
  offset: number;
  limit: number;
}

/** An observation's position, as a subject's status takes it. */
export interface CoveredFix {
  sourceId: string;
  recordedAt: number;
  latitude: number;
  longitude: number;
}

export interface AssignmentFilter {
  subjectIds: string[] | null;
  sourceIds: string[] | null;
}

/**
 * The subject side's storage (issue 27): subjects as the original's clients read and write
 * them, sources, providers, and assignments (table subject_sources). Every method is scoped to
 * the tenant given. Subject writes mark the subject on the change set (the sync feed).
 */
export interface SubjectSourceRepository {
  // ---- subjects ----
  listSubjects(tenantId: string, filter: SubjectListFilter, page: PageWindow, withTotal: boolean): Promise<{ total: number | null; items: SubjectView[] }>;
  findSubjects(tenantId: string, ids: readonly string[]): Promise<SubjectRecord[]>;
  subjectViews(tenantId: string, subjects: SubjectRecord[]): Promise<SubjectView[]>;
  insertSubject(subject: SubjectRecord): Promise<void>;
  /** Moves the revision by one; false when there is no such subject. */
  updateSubject(tenantId: string, id: string, patch: SubjectPatch, at: number): Promise<boolean>;
  deleteSubject(tenantId: string, id: string): Promise<boolean>;
  findGroup(tenantId: string, groupId: string): Promise<{ id: string; name: string } | null>;
  /** Removes memberships; each subject that lost one moves its revision. Returns those subjects. */
  removeFromGroup(tenantId: string, groupId: string, subjectIds: readonly string[], at: number): Promise<string[]>;

  // ---- providers ----
  listProviders(tenantId: string, page: PageWindow): Promise<{ total: number; items: ProviderRecord[] }>;
  findProvider(tenantId: string, idOrKey: string): Promise<ProviderRecord | null>;
  insertProvider(provider: ProviderRecord): Promise<void>;
  updateProvider(tenantId: string, id: string, patch: { displayName?: string; additional?: Record<string, unknown> }, at: number): Promise<void>;

  // ---- sources ----
  listSources(tenantId: string, page: PageWindow): Promise<{ total: number; items: SourceRecord[] }>;
  /**
   * Per key as given: the source with that id, else every source with that manufacturer id
   * (unique per provider, not per tenant: one per provider at most), oldest first; keys that
   * name nothing are absent. Choosing among several is the caller's (source-choice.ts).
   */
  findSourceCandidates(tenantId: string, idsOrManufacturerIds: readonly string[]): Promise<Map<string, SourceRecord[]>>;
  insertSource(source: SourceRecord): Promise<void>;
  updateSource(tenantId: string, id: string, patch: SourcePatch, at: number): Promise<void>;
  deleteSource(tenantId: string, id: string): Promise<boolean>;

  // ---- assignments ----
  listAssignments(tenantId: string, filter: AssignmentFilter, page: PageWindow): Promise<{ total: number; items: Assignment[] }>;
  findAssignment(tenantId: string, id: string): Promise<Assignment | null>;
  insertAssignment(assignment: Assignment): Promise<void>;
  updateAssignment(tenantId: string, id: string, patch: { subjectId?: string; rangeLower?: number; rangeUpper?: number | null; additional?: Record<string, unknown> }, at: number): Promise<void>;
  deleteAssignment(tenantId: string, id: string): Promise<boolean>;
  /** The subjects a source was ever assigned to, with the assignments. */
  subjectsOfSource(tenantId: string, sourceId: string): Promise<Array<{ subject: SubjectRecord; assignment: Assignment }>>;
  sourcesOfSubject(tenantId: string, subjectId: string): Promise<Array<{ source: SourceRecord; assignment: Assignment }>>;
  /**
   * Intake: the source now tracks the subject from `lower` on. Open assignments of the source
   * end at `lower` (or where they begin, if later); an open one to the same subject is kept.
   */
  openAssignment(tenantId: string, sourceId: string, subjectId: string, lower: number, at: number): Promise<void>;
  /** Gives the source's fixes within `span` (all of them: null) the subject of the assignment covering each. */
  reattribute(tenantId: string, sourceId: string, span?: { lower: number; upper: number | null } | null): Promise<void>;
  /** Per `source\ntime` key: the subject of the assignment covering it (the latest-starting one). */
  subjectsAt(tenantId: string, points: ReadonlyArray<{ sourceId: string; recordedAt: number }>): Promise<Map<string, string>>;
  /** Points `sensor_sources.subject_id` (who the intake attributes new fixes to) at the assignment covering `now`. */
  refreshCurrentSubject(tenantId: string, sourceId: string, now: number): Promise<void>;

  // ---- subject status (positions: not on the sync feed, like intake's status writes) ----
  /** PostgreSQL: locks the subjects' status rows (in subject order) for the rest of the transaction. */
  lockStatuses(tenantId: string, subjectIds: readonly string[]): Promise<void>;
  /** The newest fix covered by one of the subject's assignments (bounded: one index read per assignment). */
  newestCoveredFix(tenantId: string, subjectId: string): Promise<CoveredFix | null>;
  /** The subject's position becomes `fix` (null: no position; the row goes). True when it changed. */
  setStatusPosition(tenantId: string, subjectId: string, fix: CoveredFix | null, at: number): Promise<boolean>;
  /** The subjects whose status names the source as where their position came from. */
  subjectsPositionedBy(tenantId: string, sourceId: string): Promise<string[]>;
}
