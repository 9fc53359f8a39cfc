import type { EventFileRecord, EventNote, EventRecord, EventTypeFacts, EventUpdate, EventView, RelatedEvent } from '../../domain/events/model.js';
import type { User } from '../../domain/model.js';
import { toIso } from '../../db/time.js';

/** The original's user reference (CONTRACT §11). */
export function userRef(user: User) {
  return { id: user.id, username: user.username, first_name: user.firstName, last_name: user.lastName, content_type: 'accounts.user' };
}

/** Who made a change: the user, or the system (an application, or a user since removed). */
function actor(users: ReadonlyMap<string, User>, id: string | null) {
  const user = id ? users.get(id) : undefined;
  return user ? userRef(user) : { id: null, username: 'system', first_name: 'System', last_name: '', content_type: 'accounts.user' };
}

export const eventUrl = (origin: string, eventId: string) => `${origin}/api/v1.0/activity/event/${eventId}`;

export function presentEventFile(file: EventFileRecord, origin: string, users: ReadonlyMap<string, User> = new Map()) {
  return {
    id: file.id,
    filename: file.filename,
    file_type: file.contentType,
    size: file.size,
    comment: file.comment,
    /** The bytes (a download). */
    url: `${eventUrl(origin, file.eventId)}/file/${file.id}/content`,
    created_by: file.createdByUserId ? actor(users, file.createdByUserId) : null,
    created_at: toIso(file.createdAt),
    updated_at: toIso(file.updatedAt),
  };
}

export function presentEventNote(note: EventNote, users: ReadonlyMap<string, User> = new Map()) {
  return {
    id: note.id,
    event: note.eventId,
    text: note.text,
    created_by: note.createdByUserId ? actor(users, note.createdByUserId) : null,
    created_at: toIso(note.createdAt),
    updated_at: toIso(note.updatedAt),
  };
}

export function presentEventUpdate(update: EventUpdate, users: ReadonlyMap<string, User>) {
  return { message: update.message, time: toIso(update.time), type: update.type, user: actor(users, update.userId) };
}

/**
 * One event with everything the original's clients read (CONTRACT §5b, §11), and its `revision`
 * (issue 26 §2), which the earthranger profile strips (presentation/rules.ts).
 */
export function presentEvent(view: EventView, origin: string) {
  const { event, users } = view;
  const reporter = event.createdByUserId ? users.get(event.createdByUserId) : undefined;
  return {
    id: event.id,
    serial_number: event.serialNumber,
    event_type: event.eventType,
    title: event.title,
    time: toIso(event.time),
    location: event.latitude === null ? null : { latitude: event.latitude, longitude: event.longitude },
    priority: event.priority,
    state: event.state,
    event_details: event.eventDetails,
    patrol_segments: view.segmentIds,
    reported_by: reporter ? userRef(reporter) : null,
    is_collection: view.isCollection,
    event_category: view.type.category,
    icon_id: view.type.iconId,
    image_url: iconUrl(origin, view.type),
    geojson: eventGeojson(event, view.type, origin),
    contains: view.contains.map((related) => presentRelated(related, origin)),
    is_contained_in: view.containedIn.map((related) => presentRelated(related, origin)),
    is_linked_to: [],
    notes: view.notes.map((note) => presentEventNote(note, users)),
    files: view.files.map((file) => presentEventFile(file, origin, users)),
    updates: view.updates.map((update) => presentEventUpdate(update, users)),
    url: eventUrl(origin, event.id),
    created_at: toIso(event.createdAt),
    updated_at: toIso(event.updatedAt),
    revision: event.revision,
    // Issue 28 §4 (fieldops profile only, like `revision`): the type revision the details were recorded against.
    schema_revision: event.schemaRevision,
    ...(view.renderedDetails ? { rendered_details: view.renderedDetails.map(({ key, title, value, display }) => ({ key, title, value, display })) } : {}),
  };
}

/** The type's icon under /static/ (the catalog's icon route). */
export const iconUrl = (origin: string, facts: EventTypeFacts) => `${origin}/static/sprite-src/${encodeURIComponent(facts.iconId)}.svg`;

/**
 * The event as a GeoJSON Feature (issue 27 §3): a Point from its location, null without one.
 * `properties` carry what the web app's map reads (`image`, the type's icon) and what a
 * FeatureCollection reader needs without the event beside it (id, title, type, priority, state, time).
 */
export function eventGeojson(event: EventRecord, facts: EventTypeFacts, origin: string) {
  if (event.latitude === null || event.longitude === null) return null;
  const image = iconUrl(origin, facts);
  return {
    type: 'Feature' as const,
    geometry: { type: 'Point' as const, coordinates: [event.longitude, event.latitude] },
    properties: {
      id: event.id,
      serial_number: event.serialNumber,
      title: event.title || facts.display || event.eventType,
      event_type: event.eventType,
      event_category: facts.category,
      priority: event.priority,
      state: event.state,
      time: toIso(event.time),
      datetime: toIso(event.time),
      is_collection: facts.isCollection,
      message: '',
      image,
      icon: { iconUrl: image, iconSize: [25, 25], iconAncor: [12, 12], popupAncor: [0, -13], className: 'dot' },
    },
  };
}

/** The other event of a relationship, as the original nests it (`related_event`: the event without its own relationships, notes or files). */
export function presentRelated(related: RelatedEvent, origin: string) {
  const { event, facts } = related;
  return {
    type: related.type,
    ordernum: related.ordernum,
    url: eventUrl(origin, event.id),
    related_event: {
      id: event.id,
      serial_number: event.serialNumber,
      event_type: event.eventType,
      event_category: facts.category,
      title: event.title,
      time: toIso(event.time),
      location: event.latitude === null ? null : { latitude: event.latitude, longitude: event.longitude },
      priority: event.priority,
      state: event.state,
      is_collection: facts.isCollection,
      icon_id: facts.iconId,
      image_url: iconUrl(origin, facts),
      geojson: eventGeojson(event, facts, origin),
      url: eventUrl(origin, event.id),
      created_at: toIso(event.createdAt),
      updated_at: toIso(event.updatedAt),
    },
  };
}
