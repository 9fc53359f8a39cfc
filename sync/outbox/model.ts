import type { PushOutcome } from '../../protocol/push.js';

/**
 * What the outbox holds. An entry is one write to make on the server; its `id` is generated on
 * the laptop when the record is made (imports derive it from the file's content and the row, see
 * ids.ts), and a create is sent with it, so the server can tell a repeat (409) from a new record.
 */
export const OUTBOX_KINDS = [
  'event.create', 'event.update', 'event.note', 'event.file',
  'patrol.create', 'patrol.update', 'patrol.note', 'patrol.file',
  'segment.update', 'conflict.resolve', 'observation',
] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

export type OutboxStatus = 'pending' | 'sent' | 'rejected' | 'conflict' | 'dropped';

export interface NewEntry {
  id: string;
  kind: OutboxKind;
  /** The server record created or changed (for a create, the same as `id` or the record's own id). */
  target: string | null;
  dependsOn?: string | null;
  body: unknown;
  baseEtag?: string | null;
  /** Consecutive pending entries with the same key may be sent in one request. */
  batchKey?: string | null;
  source?: string | null;
  /** For updates: the record's revision the change was made against (the pulled record's). */
  baseRevision?: number | null;
  /** For updates: the earlier pending entry of the same record this change follows (chained bases). */
  baseEntry?: string | null;
}

export interface OutboxEntry extends Required<NewEntry> {
  seq: number;
  status: OutboxStatus;
  reason: string | null;
  theirs: unknown;
  recordedAt: string;
  sentAt: string | null;
  etag: string | null;
  /** Who recorded it and the server it is for (sync/outbox/owner.ts); null on entries from before that was kept. */
  userId?: string | null;
  username?: string | null;
  server?: string | null;
  /** The server's answer to the batched push (protocol/push.ts `PushOutcome`); null before, or when sent one by one. */
  outcome?: PushOutcome | null;
  /** The record's revision after this entry (what a following edit is based on); null when unknown. */
  revision?: number | null;
}

export interface OutboxCounts {
  pending: number;
  sent: number;
  rejected: number;
  conflict: number;
  dropped: number;
}
