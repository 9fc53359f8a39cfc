import type { ActivityEvent, EventFile, User } from '../model.js';

export const EVENT_STATES = ['new', 'active', 'resolved'] as const;
export type EventState = (typeof EVENT_STATES)[number];

/** An event as stored: with its per-tenant serial number and its revision (the ETag's source). */
export interface EventRecord extends ActivityEvent {
  serialNumber: number;
  /** Bumped by every change to the event, its notes or its files. */
  revision: number;
  /**
   * Issue 28 §4: the v2 type's catalog history `sequence` when the details (or the type) were last
   * written; null for a v1 type, and for events stored before it was kept (unknown revision).
   */
  schemaRevision: number | null;
}

/** An event as a write stores it: with the revision of its type's schema it was checked against. */
export interface EventWrite extends ActivityEvent {
  schemaRevision: number | null;
}

/**
 * One stored detail presented through the revision it was recorded against (`?render=as_recorded`):
 * its key, the revision's title for it (the key when the revision does not describe it), the
 * value as stored, and the choice's display name (else the value as text).
 */
export interface RenderedDetail {
  key: string;
  title: string;
  value: unknown;
  display: string;
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
  /** What the representation shows of the event's type (its icon, category). */
  type: EventTypeFacts;
  /** The events this one contains (an incident's), in order, and the incidents that contain it. */
  contains: RelatedEvent[];
  containedIn: RelatedEvent[];
  /** Only when asked for (`?render=as_recorded`): the details as recorded (events/render.ts). */
  renderedDetails?: RenderedDetail[];
}

/** What an event's representation shows of its type: the icon (`icon`, else the value) and category. */
export interface EventTypeFacts {
  iconId: string;
  category: string | null;
  display: string | null;
  isCollection: boolean;
}

/** One relationship seen from one side: the other event, with its type's facts. */
export interface RelatedEvent {
  type: string;
  ordernum: number | null;
  event: EventRecord;
  facts: EventTypeFacts;
}

/** A stored relationship (`contains`: the incident `fromEventId` contains `toEventId`). */
export interface EventRelationship {
  tenantId: string;
  fromEventId: string;
  type: string;
  toEventId: string;
  ordernum: number | null;
  createdAt: number;
}

/** The map's box: west, south, east, north in degrees (west > east crosses the antimeridian). */
export interface BoundingBox {
  west: number;
  south: number;
  east: number;
  north: number;
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
  /** Only events located inside the box (events without a location never match). */
  bbox: BoundingBox | null;
  /** Only events with a location (the map's reads). */
  located?: boolean;
  sort: { column: 'time' | 'updated_at' | 'created_at' | 'serial_number'; descending: boolean };
}

export const NO_FILTER: EventListFilter = {
  states: null, eventTypes: null, dateRange: null, text: null, priorities: null, reportedBy: null, updatedSince: null, bbox: null,
  sort: { column: 'time', descending: true },
};
