import type { ActivityEvent, EventFile, User } from '../model.js';

export const EVENT_STATES = ['new', 'active', 'resolved'] as const;
export type EventState = (typeof EVENT_STATES)[number];

/** An event as stored: with its per-tenant serial number and its revision (the ETag's source). */
export interface EventRecord extends ActivityEvent {
  serialNumber: number;
  /** Bumped by every change to the event, its notes or its files. */
  revision: number;
}

/** A file of an event, with what the events family adds (comment, who attached it). */
export interface EventFileRecord extends EventFile {
  comment: string;
  createdByUserId: string | null;
  updatedAt: number;
}

export interface EventNote {
  id: string;
  tenantId: string;
  eventId: string;
  text: string;
  createdByUserId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One entry of an event's history (`updates`), newest first when served. */
export interface EventUpdate {
  id: string;
  tenantId: string;
  eventId: string;
  /** add_event, update_event, update_event_state, add_note, update_note, delete_note, add_eventfile, delete_eventfile. */
  type: string;
  message: string;
  userId: string | null;
  time: number;
}

/** Everything an event's representation shows. */
export interface EventView {
  event: EventRecord;
  segmentIds: string[];
  files: EventFileRecord[];
  notes: EventNote[];
  updates: EventUpdate[];
  /** The users named by the event, its notes and updates, by id. */
  users: ReadonlyMap<string, User>;
  /** Whether the event type is a collection (incidents). */
  isCollection: boolean;
}

/** The list's filter (CONTRACT §11): every part optional; types resolved to values by the service. */
export interface EventListFilter {
  states: EventState[] | null;
  /** Event type values (ids and values are resolved to values). */
  eventTypes: string[] | null;
  dateRange: { lower: number | null; upper: number | null } | null;
  text: string | null;
  priorities: number[] | null;
  reportedBy: string[] | null;
  updatedSince: number | null;
  sort: { column: 'time' | 'updated_at' | 'created_at' | 'serial_number'; descending: boolean };
}

export const NO_FILTER: EventListFilter = {
  states: null, eventTypes: null, dateRange: null, text: null, priorities: null, reportedBy: null, updatedSince: null,
  sort: { column: 'time', descending: true },
};
