import type { PatrolListFilter } from './filters.js';
import type { Patrol, PatrolFile, PatrolNote, PatrolSegment, PatrolUpdate } from './model.js';

/** The list filter with patrol types resolved to ids. */
export type ResolvedPatrolFilter = Omit<PatrolListFilter, 'patrolTypes'> & { patrolTypeIds: string[] | null };

/** A patrol as its create writes it: the rows of its segments, notes and updates with it. */
export interface NewPatrol {
  patrol: Patrol;
  segments: PatrolSegment[];
  notes: PatrolNote[];
  updates: PatrolUpdate[];
}

export interface PatrolRepository {
  /**
   * Writes a new patrol with its segments, notes and updates, all or nothing (atomic on its
   * own; inside a transaction when given one), and gives it the tenant's next serial number
   * (unique and increasing per tenant; its `serialNumber` is ignored), which it returns. The
   * tenant's counter row is locked only from this write to its commit.
   */
  createPatrol(write: NewPatrol): Promise<number>;
  updatePatrol(patrol: Patrol): Promise<void>;
  /**
   * Deletes a patrol with its segments, notes, files (their bytes queued for removal) and
   * updates; marks it (a tombstone on the sync feed) and the events its segments listed.
   * false when there was none.
   */
  deletePatrol(tenantId: string, id: string): Promise<boolean>;
  findPatrol(tenantId: string, id: string): Promise<Patrol | null>;
  listPatrols(tenantId: string, filter: ResolvedPatrolFilter, now: number, page: { offset: number; limit: number }): Promise<{ total: number; patrols: Patrol[] }>;

  segmentsOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolSegment[]>;
  findSegment(tenantId: string, id: string): Promise<PatrolSegment | null>;
  insertSegment(segment: PatrolSegment): Promise<void>;
  updateSegment(segment: PatrolSegment): Promise<void>;
  listSegments(tenantId: string, page: { offset: number; limit: number }): Promise<{ total: number; segments: PatrolSegment[] }>;
  eventIdsOf(tenantId: string, segmentIds: readonly string[]): Promise<Map<string, string[]>>;
  linkEvent(tenantId: string, segmentId: string, eventId: string): Promise<void>;

  notesOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolNote[]>;
  insertNote(note: PatrolNote): Promise<void>;
  updateNote(note: PatrolNote): Promise<void>;

  filesOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolFile[]>;
  insertFile(file: PatrolFile): Promise<void>;
  updateFile(file: PatrolFile): Promise<void>;

  updatesOf(tenantId: string, patrolIds: readonly string[]): Promise<PatrolUpdate[]>;
  insertUpdate(update: PatrolUpdate): Promise<void>;

  /** Open patrols (of every tenant) whose segments have all ended at or before `now`. */
  dueForCompletion(now: number, limit: number): Promise<Array<{ id: string; tenantId: string }>>;
  /** done only if still open and still due; false when another process got there first. */
  completeIfDue(tenantId: string, id: string, now: number): Promise<boolean>;
}
