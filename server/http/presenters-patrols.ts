import type { PatrolFile, PatrolNote, PatrolUpdate, PatrolView, SegmentView } from '../domain/patrols/model.js';
import { toIso } from '../db/time.js';
import { presentUser } from './handlers/users.js';
import { presentSubject } from './presenters.js';

const iso = (millis: number | null) => (millis === null ? null : toIso(millis));

/**
 * Patrols and segments as the fieldops profile shows them. `revision` (issue 26 §2) is ours: the
 * earthranger profile strips it (presentation/rules.ts), nested segments and leaders included.
 */
export function presentSegment(view: SegmentView, origin: string) {
  const { segment, patrolType, leader } = view;
  const iconId = patrolType ? patrolType.icon || patrolType.value : null;
  return {
    id: segment.id,
    patrol: segment.patrolId,
    patrol_type: patrolType?.value ?? null,
    leader: leader === null ? null : leader.type === 'observations.subject' ? presentSubject(leader.subject) : { content_type: 'accounts.user', ...presentUser(leader.user) },
    scheduled_start: iso(segment.scheduledStart),
    scheduled_end: iso(segment.scheduledEnd),
    time_range: { start_time: iso(segment.startTime), end_time: iso(segment.endTime) },
    start_location: segment.startLocation,
    end_location: segment.endLocation,
    image_url: iconId ? `${origin}/static/sprite-src/${encodeURIComponent(iconId)}.svg` : null,
    icon_id: iconId,
    events: view.eventIds.map((id) => ({ id })),
    updated_at: toIso(segment.updatedAt),
    revision: segment.revision,
  };
}

export function presentNote(note: PatrolNote) {
  return {
    id: note.id,
    text: note.text,
    created_by: note.createdByUserId ? { id: note.createdByUserId, username: note.createdByUsername } : null,
    created_at: toIso(note.createdAt),
    updated_at: toIso(note.updatedAt),
  };
}

export function presentPatrolUpdate(update: PatrolUpdate) {
  return {
    message: update.message,
    time: toIso(update.time),
    type: update.type,
    // The account as the original shows it (issue 27): names and content_type beside id and username.
    user: update.userId
      ? { id: update.userId, username: update.username, first_name: update.firstName ?? '', last_name: update.lastName ?? '', content_type: 'accounts.user' }
      : { username: update.username ?? 'system', first_name: '', last_name: '', content_type: 'accounts.user' },
  };
}

export function presentPatrolFile(file: PatrolFile, origin: string) {
  return {
    id: file.id,
    patrol: file.patrolId,
    usercontent_id: file.id,
    usercontent_type: 'activity.patrolfile',
    filename: file.filename,
    file_type: file.contentType,
    size: file.size,
    comment: file.comment,
    ordernum: file.ordernum,
    url: `${origin}/api/v1.0/activity/patrols/${file.patrolId}/files/${file.id}/content`,
    created_at: toIso(file.createdAt),
    updated_at: toIso(file.updatedAt),
  };
}

export function presentPatrol(view: PatrolView, origin: string) {
  const { patrol } = view;
  return {
    id: patrol.id,
    serial_number: patrol.serialNumber,
    title: patrol.title,
    objective: patrol.objective,
    priority: patrol.priority,
    state: patrol.state,
    notes: view.notes.map(presentNote),
    files: view.files.map((file) => presentPatrolFile(file, origin)),
    patrol_segments: view.segments.map((segment) => presentSegment(segment, origin)),
    updates: view.updates.map(presentPatrolUpdate),
    created_at: toIso(patrol.createdAt),
    updated_at: toIso(patrol.updatedAt),
    revision: patrol.revision,
  };
}
