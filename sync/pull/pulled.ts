/**
 * The pulled records (tables `pulled_patrols`, `pulled_events`, `pulled_subjects`), written by
 * the change feed (sync/feed/) or by the older `updated_since` pull (run-pull.ts), read by the
 * offline lists: records as the server sent them, newest first. A record deleted on the server
 * (or that left the laptop's scopes) is deleted from its table, so the lists never show it.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

export type PulledResource = 'patrols' | 'events' | 'subjects';

type Rec = Record<string, unknown>;

/** The columns the lists sort and filter on, derived from a record (one mapping for both pulls). */
export interface PulledColumns {
  label: string;
  sort_time: string | null;
  state: string | null;
  updated_at: string | null;
}

export const PULLED_COLUMNS: Record<PulledResource, (r: Rec) => PulledColumns> = {
  patrols: (r) => {
    const segments = (r.patrol_segments as Array<{ time_range?: { start_time?: string | null } }> | undefined) ?? [];
    return { label: String(r.serial_number ?? ''), sort_time: segments[0]?.time_range?.start_time ?? (r.created_at as string | null) ?? null, state: (r.state as string) ?? null, updated_at: (r.updated_at as string) ?? null };
  },
  events: (r) => ({ label: String(r.event_type ?? ''), sort_time: (r.time as string) ?? null, state: (r.state as string) ?? null, updated_at: (r.updated_at as string) ?? null }),
  subjects: (r) => {
    const newest = [r.updated_at, r.last_position_date].filter((v): v is string => typeof v === 'string').sort((a, b) => Date.parse(b) - Date.parse(a))[0] ?? null;
    return { label: String(r.name ?? ''), sort_time: (r.last_position_date as string) ?? null, state: r.is_active === false ? 'inactive' : 'active', updated_at: newest };
  },
};

/** sha256 of the stored `record` text: `fieldops verify` recomputes it to catch an edited row. */
export const recordHash = (recordText: string) => createHash('sha256').update(recordText).digest('hex');

/**
 * The whole row of a pulled record (version: the feed's, null from the older pull). `revision`
 * (issue 26 §2) is the record's own, what an offline update is based on; null from a server
 * that serves none.
 */
export function pulledRow(resource: PulledResource, id: string, record: Rec, etag: string | null, version: number | null) {
  const text = JSON.stringify(record);
  return { id, ...PULLED_COLUMNS[resource](record), etag, record: text, hash: recordHash(text), version, revision: revisionOf(record) };
}

/** A record's `revision` (a positive integer), or null. */
export const revisionOf = (record: Rec): number | null => (typeof record.revision === 'number' && Number.isSafeInteger(record.revision) ? record.revision : null);

export interface PulledRow {
  id: string;
  label: string;
  sortTime: string | null;
  state: string | null;
  updatedAt: string | null;
  etag: string | null;
  record: Record<string, unknown>;
}

export async function pulledRows(knex: Knex, resource: PulledResource, limit = 500): Promise<PulledRow[]> {
  const rows = await knex(`pulled_${resource}`).orderBy([{ column: 'sort_time', order: 'desc' }, { column: 'id' }]).limit(limit);
  return rows.map((r: Record<string, string | null>) => ({ id: r.id!, label: r.label ?? '', sortTime: r.sort_time ?? null, state: r.state ?? null, updatedAt: r.updated_at ?? null, etag: r.etag ?? null, record: JSON.parse(r.record!) as Record<string, unknown> }));
}

interface SegmentRecord {
  id: string;
  time_range?: { start_time?: string | null; end_time?: string | null };
}

/** A pulled patrol by serial number or id (a unique prefix of 4+ characters is enough). */
export async function pulledPatrol(knex: Knex, ref: string) {
  const rows = /^\d{1,9}$/.test(ref)
    ? await knex('pulled_patrols').where({ label: ref })
    : await knex('pulled_patrols').where('id', 'like', `${ref.toLowerCase().replace(/[%_]/g, '')}%`).limit(2);
  if (rows.length !== 1 || (!/^\d+$/.test(ref) && ref.length < 4 && rows[0].id !== ref)) return null;
  const row = rows[0] as { id: string; label: string; etag: string | null; record: string; revision?: number | string | null };
  const record = JSON.parse(row.record) as { patrol_segments?: SegmentRecord[] };
  const open = (record.patrol_segments ?? []).filter((s) => !s.time_range?.end_time).pop();
  return { id: row.id, serial: Number(row.label), createEntry: null, segment: open ? { id: open.id, startTime: open.time_range?.start_time ?? null } : null, revision: row.revision === null || row.revision === undefined ? revisionOf(record as Rec) : Number(row.revision), etag: row.etag };
}
