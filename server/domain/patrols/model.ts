import type { CatalogItem, Subject, User } from '../model.js';

export const PATROL_STATES = ['open', 'done', 'cancelled'] as const;
export type PatrolState = (typeof PATROL_STATES)[number];

export interface LatLon {
  latitude: number;
  longitude: number;
}

/** What a patrol's segments imply, stored on the patrol row for filtering (see window.ts). */
export interface PatrolWindow {
  segmentCount: number;
  windowStart: number | null;
  windowEnd: number | null;
  openEnded: boolean;
  actualStart: number | null;
  scheduledStart: number | null;
  allEndedAt: number | null;
}

export interface Patrol {
  id: string;
  tenantId: string;
  serialNumber: number;
  title: string | null;
  objective: string | null;
  priority: number;
  state: PatrolState;
  window: PatrolWindow;
  createdByUserId: string | null;
  createdAt: number;
  updatedAt: number;
  /**
   * Moves by one with every write of the patrol's own fields or of any of its segments (the
   * automatic-done sweep's included; notes and files do not move it). Creates start at 1. The
   * base an offline update names (issue 26 §2).
   */
  revision: number;
}

export type LeaderType = 'observations.subject' | 'accounts.user';

export interface PatrolSegment {
  id: string;
  tenantId: string;
  patrolId: string;
  patrolTypeId: string | null;
  leaderType: LeaderType | null;
  leaderId: string | null;
  scheduledStart: number | null;
  scheduledEnd: number | null;
  startTime: number | null;
  endTime: number | null;
  startLocation: LatLon | null;
  endLocation: LatLon | null;
  createdAt: number;
  updatedAt: number;
  /** Set to its patrol's new revision whenever the segment changes (one counter per patrol). */
  revision: number;
}

export interface PatrolNote {
  id: string;
  tenantId: string;
  patrolId: string;
  text: string;
  createdByUserId: string | null;
  createdByUsername: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface PatrolUpdate {
  id: string;
  tenantId: string;
  patrolId: string;
  type: string;
  message: string;
  /** null when the system made the change (the automatic-done sweep). */
  userId: string | null;
  username: string | null;
  /** The user's names as they are now (read with the update; never written). */
  firstName?: string;
  lastName?: string;
  time: number;
}

export interface PatrolFile {
  id: string;
  tenantId: string;
  patrolId: string;
  sha256: string;
  storagePath: string;
  filename: string;
  contentType: string;
  size: number;
  comment: string;
  ordernum: number | null;
  createdByUserId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A segment with what presenting it needs. */
export interface SegmentView {
  segment: PatrolSegment;
  patrolType: CatalogItem | null;
  leader: { type: 'observations.subject'; subject: Subject } | { type: 'accounts.user'; user: User } | null;
  eventIds: string[];
}

export interface PatrolView {
  patrol: Patrol;
  segments: SegmentView[];
  notes: PatrolNote[];
  files: PatrolFile[];
  updates: PatrolUpdate[];
}
