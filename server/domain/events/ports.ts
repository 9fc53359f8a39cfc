import type { ActivityEvent, EventFile } from '../model.js';
import type { EventFileRecord, EventListFilter, EventNote, EventRecord, EventTypeFacts, EventUpdate } from './model.js';

/** Events and their files (CONTRACT §5b, §11); every read is scoped by tenant. */
export interface EventRepository extends EventMapReads {
  /** Inserts at revision 1 with a provisional serial number: call assignSerialNumber before the transaction ends. */
  insert(event: ActivityEvent): Promise<void>;
  /**
   * Gives the event the tenant's next serial number. Call it as the transaction's last write: on
   * PostgreSQL the tenant's counter row stays locked until the commit, so concurrent creates of
   * one tenant wait for each other only from here on.
   */
  assignSerialNumber(tenantId: string, id: string): Promise<number>;
  /**
   * Writes the event's fields and bumps its revision. With `expectedRevision`, only when the
   * row is still at that revision; false when it was not (the caller answers 412).
   */
  update(event: ActivityEvent, expectedRevision?: number): Promise<boolean>;
  /** Removes the event; its notes, files, history and segment links go with it. */
  delete(tenantId: string, id: string): Promise<boolean>;
  list(tenantId: string, page: { offset: number; limit: number }, segmentId?: string, filter?: EventListFilter): Promise<{ total: number; events: EventRecord[] }>;
  /** Segment ids linked to each event. */
  segmentIdsOf(tenantId: string, eventIds: readonly string[]): Promise<Map<string, string[]>>;
  find(tenantId: string, id: string): Promise<EventRecord | null>;
  /** The events of those ids that exist (any order). */
  findMany(tenantId: string, ids: readonly string[]): Promise<EventRecord[]>;
  /** A change to the event's notes or files: a new updated_at and revision. */
  touch(tenantId: string, id: string, at: number): Promise<void>;
  attachFile(file: EventFile & Partial<Pick<EventFileRecord, 'comment' | 'createdByUserId' | 'updatedAt'>>): Promise<void>;
  filesOf(tenantId: string, eventId: string): Promise<EventFileRecord[]>;
  /** Files of many events, grouped by event id. */
  filesOfMany(tenantId: string, eventIds: readonly string[]): Promise<Map<string, EventFileRecord[]>>;
  deleteFile(tenantId: string, eventId: string, fileId: string): Promise<boolean>;
}

/** Notes and history of events. */
export interface EventNoteRepository {
  notesOf(tenantId: string, eventIds: readonly string[]): Promise<EventNote[]>;
  insertNote(note: EventNote): Promise<void>;
  updateNote(note: EventNote): Promise<void>;
  deleteNote(tenantId: string, eventId: string, noteId: string): Promise<boolean>;
  updatesOf(tenantId: string, eventIds: readonly string[]): Promise<EventUpdate[]>;
  insertUpdate(update: EventUpdate): Promise<void>;
}

/** Reads of the map and the export (issue 27 §3, §4). */
export interface EventMapReads {
  /** How many events the filter matches. */
  count(tenantId: string, filter: EventListFilter): Promise<number>;
  /** The facts of the named types (active v2 type of that value, else active v1), by value. */
  typeFacts(tenantId: string, values: readonly string[]): Promise<Map<string, EventTypeFacts>>;
  /**
   * One batch of the filter's events in its sort order (then id), after `after` (the last row
   * of the previous batch): keyset pagination, so every batch costs the same.
   */
  exportBatch(tenantId: string, filter: EventListFilter, after: EventRecord | null, limit: number): Promise<EventRecord[]>;
  /**
   * The distinct event types among the filter's events, in value order, at most `max`: an
   * indexed read of the type column, never of the events' details (the export's columns come
   * from the types' schemas).
   */
  exportTypes(tenantId: string, filter: EventListFilter, max: number): Promise<string[]>;
}
