/**
 * The mirror store port: what the sync engine writes and the offline commands read. One
 * implementation today (Knex over SQLite, knex-store.ts); every implementation must pass
 * test/helpers/mirror-conformance.ts.
 *
 * The one write, `apply`, is a single transaction: the data of every changed resource, every
 * checkpoint and the mirror's identity commit together or not at all. A reader (or a process
 * killed mid-sync) therefore sees the old mirror or the new one, never a mix.
 */

import type { UsageSummary } from '../../schema/compat/types.js';

export const RESOURCES = ['patrol_types', 'event_types', 'choices', 'trackedby'] as const;
export type ResourceName = (typeof RESOURCES)[number];
export type ItemResource = Exclude<ResourceName, 'trackedby'>;
export const ITEM_RESOURCES: readonly ItemResource[] = ['patrol_types', 'event_types', 'choices'];

export type CheckpointStatus = 'ok' | 'not_offered' | 'forbidden';

export interface Validators {
  etag: string | null;
  lastModified: string | null;
  /** Validators of the pages after the first, for paginated resources. */
  pages: string[];
}

export interface Checkpoint extends Validators {
  resource: ResourceName;
  status: CheckpointStatus;
  /** ISO time the server last confirmed (304) or replaced (200) this resource. */
  syncedAt: string;
  /** ISO time the mirrored data last changed. */
  changedAt: string | null;
  itemCount: number;
}

/** Which server and user the mirror holds data of. */
export interface MirrorMeta {
  server: string;
  username: string | null;
}

/** A record as the server sent it. */
export type ApiRecord = Record<string, unknown> & { id: string; value: string };

export type ResourceUpdate =
  /** The server answered 304: only the checkpoint's `syncedAt` moves. */
  | { resource: ResourceName; kind: 'unchanged' }
  /** The complete current list (deleted records are absent: they are pruned). */
  | { resource: ItemResource; kind: 'items'; items: ApiRecord[]; validators: Validators }
  | { resource: 'trackedby'; kind: 'document'; document: unknown; validators: Validators }
  /** 404 (not offered by this server) or 403: recorded; mirrored data is kept. */
  | { resource: ResourceName; kind: 'unavailable'; status: Exclude<CheckpointStatus, 'ok'> };

export interface ApplyInput {
  meta: MirrorMeta;
  syncedAt: string;
  /** Drop every mirrored resource first (the mirror held another server's data). */
  reset: boolean;
  updates: ResourceUpdate[];
}

export interface ChangeSummary {
  added: string[];
  updated: string[];
  /** Gone from the server: deleted from the mirror. */
  removed: string[];
  /** Still listed, now `is_active: false`: kept and flagged. */
  deactivated: string[];
  reactivated: string[];
}

export type ApplyProgress = (progress: { resource: ResourceName; done: number; total: number }) => void;

export interface MirrorItem {
  id: string;
  value: string;
  display: string;
  ordernum: number | null;
  isActive: boolean;
  updatedAt: string | null;
  record: ApiRecord;
}

export interface MirrorStore {
  /** null for a mirror that was never synced. */
  meta(): Promise<MirrorMeta | null>;
  checkpoints(): Promise<Checkpoint[]>;
  apply(input: ApplyInput, onProgress?: ApplyProgress): Promise<Partial<Record<ResourceName, ChangeSummary>>>;
  /** Items ordered by `ordernum` (nulls last), then `value`. */
  items(resource: ItemResource): Promise<MirrorItem[]>;
  itemsByValue(resource: ItemResource, value: string): Promise<MirrorItem[]>;
  document(name: 'trackedby'): Promise<unknown | null>;
  /** Issue 28: the usage summaries kept for these event type values (absent ones are not returned). */
  usageSummaries(eventTypes: readonly string[]): Promise<KeptUsage[]>;
  /** When the server's usage summaries were last asked for (answered or not offered); null: never. */
  usageCheckedAt(): Promise<string | null>;
  /** Keeps (replaces) these summaries and records `checkedAt`, in one transaction. */
  keepUsageSummaries(input: { summaries: readonly UsageSummary[]; fetchedAt: string; etag: string | null; checkedAt: string }): Promise<void>;
  close(): Promise<void>;
}

/** A usage summary as the mirror keeps it (`lint --against mirror` reads it offline). */
export interface KeptUsage {
  eventType: string;
  summary: UsageSummary;
  fetchedAt: string;
  etag: string | null;
}

export const emptySummary = (): ChangeSummary => ({ added: [], updated: [], removed: [], deactivated: [], reactivated: [] });
