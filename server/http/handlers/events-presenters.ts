import type { EventFileRecord, EventNote, EventUpdate, EventView } from '../../domain/events/model.js';
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
    notes: view.notes.map((note) => presentEventNote(note, users)),
    files: view.files.map((file) => presentEventFile(file, origin, users)),
    updates: view.updates.map((update) => presentEventUpdate(update, users)),
    url: eventUrl(origin, event.id),
    created_at: toIso(event.createdAt),
    updated_at: toIso(event.updatedAt),
    revision: event.revision,
  };
}
