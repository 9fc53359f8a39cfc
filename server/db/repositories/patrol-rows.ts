import type { Patrol, PatrolFile, PatrolNote, PatrolSegment, PatrolUpdate } from '../../domain/patrols/model.js';
import { fromDbBool, fromDbMillis, fromDbMillisOrNull } from '../time.js';

type Row = Record<string, unknown>;
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export const toPatrol = (row: Row): Patrol => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  serialNumber: Number(row.serial_number),
  title: (row.title as string | null) ?? null,
  objective: (row.objective as string | null) ?? null,
  priority: Number(row.priority),
  state: row.state as Patrol['state'],
  window: {
    segmentCount: Number(row.segment_count),
    windowStart: fromDbMillisOrNull(row.window_start),
    windowEnd: fromDbMillisOrNull(row.window_end),
    openEnded: fromDbBool(row.open_ended),
    actualStart: fromDbMillisOrNull(row.actual_start),
    scheduledStart: fromDbMillisOrNull(row.scheduled_start),
    allEndedAt: fromDbMillisOrNull(row.all_ended_at),
  },
  createdByUserId: (row.created_by_user_id as string | null) ?? null,
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
  revision: Number(row.revision ?? 1),
});

/** `revision` is the service's to set (under the patrols lock); a create's rows start at 1. */
export const patrolRow = (p: Patrol): Row => ({
  id: p.id, tenant_id: p.tenantId, serial_number: p.serialNumber, title: p.title, objective: p.objective,
  priority: p.priority, state: p.state, segment_count: p.window.segmentCount, window_start: p.window.windowStart,
  window_end: p.window.windowEnd, open_ended: p.window.openEnded, actual_start: p.window.actualStart,
  scheduled_start: p.window.scheduledStart, all_ended_at: p.window.allEndedAt, created_by_user_id: p.createdByUserId,
  created_at: p.createdAt, updated_at: p.updatedAt, revision: p.revision ?? 1,
});

export const toSegment = (row: Row): PatrolSegment => {
  const location = (lat: unknown, lon: unknown) => (lat === null || lat === undefined ? null : { latitude: Number(lat), longitude: Number(lon) });
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    patrolId: row.patrol_id as string,
    patrolTypeId: (row.patrol_type_id as string | null) ?? null,
    leaderType: (row.leader_type as PatrolSegment['leaderType']) ?? null,
    leaderId: (row.leader_id as string | null) ?? null,
    scheduledStart: fromDbMillisOrNull(row.scheduled_start),
    scheduledEnd: fromDbMillisOrNull(row.scheduled_end),
    startTime: fromDbMillisOrNull(row.start_time),
    endTime: fromDbMillisOrNull(row.end_time),
    startLocation: location(row.start_latitude, row.start_longitude),
    endLocation: location(row.end_latitude, row.end_longitude),
    createdAt: fromDbMillis(row.created_at),
    updatedAt: fromDbMillis(row.updated_at),
    revision: Number(row.revision ?? 1),
  };
};

export const segmentRow = (s: PatrolSegment): Row => ({
  id: s.id, tenant_id: s.tenantId, patrol_id: s.patrolId, patrol_type_id: s.patrolTypeId, leader_type: s.leaderType,
  leader_id: s.leaderId, scheduled_start: s.scheduledStart, scheduled_end: s.scheduledEnd, start_time: s.startTime,
  end_time: s.endTime, start_latitude: s.startLocation?.latitude ?? null, start_longitude: s.startLocation?.longitude ?? null,
  end_latitude: s.endLocation?.latitude ?? null, end_longitude: s.endLocation?.longitude ?? null, created_at: s.createdAt, updated_at: s.updatedAt,
  revision: s.revision ?? 1,
});

export const toNote = (row: Row): PatrolNote => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  patrolId: row.patrol_id as string,
  text: row.text as string,
  createdByUserId: (row.created_by_user_id as string | null) ?? null,
  createdByUsername: (row.created_by_username as string | null) ?? null,
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

export const noteRow = (n: PatrolNote): Row => ({
  id: n.id, tenant_id: n.tenantId, patrol_id: n.patrolId, text: n.text, created_by_user_id: n.createdByUserId,
  created_by_username: n.createdByUsername, created_at: n.createdAt, updated_at: n.updatedAt,
});

export const toUpdate = (row: Row): PatrolUpdate => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  patrolId: row.patrol_id as string,
  type: row.type as string,
  message: row.message as string,
  userId: (row.user_id as string | null) ?? null,
  username: (row.username as string | null) ?? null,
  ...(typeof row.first_name === 'string' ? { firstName: row.first_name } : {}),
  ...(typeof row.last_name === 'string' ? { lastName: row.last_name } : {}),
  time: fromDbMillis(row.time),
});

export const updateRow = (u: PatrolUpdate): Row => ({
  id: u.id, tenant_id: u.tenantId, patrol_id: u.patrolId, type: u.type, message: u.message, user_id: u.userId, username: u.username, time: u.time,
});

export const toFile = (row: Row): PatrolFile => ({
  id: row.id as string,
  tenantId: row.tenant_id as string,
  patrolId: row.patrol_id as string,
  sha256: row.sha256 as string,
  storagePath: row.storage_path as string,
  filename: row.filename as string,
  contentType: row.content_type as string,
  size: Number(row.size),
  comment: row.comment as string,
  ordernum: num(row.ordernum),
  createdByUserId: (row.created_by_user_id as string | null) ?? null,
  createdAt: fromDbMillis(row.created_at),
  updatedAt: fromDbMillis(row.updated_at),
});

export const fileRow = (f: PatrolFile): Row => ({
  id: f.id, tenant_id: f.tenantId, patrol_id: f.patrolId, sha256: f.sha256, storage_path: f.storagePath, filename: f.filename, content_type: f.contentType,
  size: f.size, comment: f.comment, ordernum: f.ordernum, created_by_user_id: f.createdByUserId, created_at: f.createdAt, updated_at: f.updatedAt,
});
