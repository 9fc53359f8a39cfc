/**
 * Reads of what `fieldops sync` pulled (tables `pulled_patrols`, `pulled_events`,
 * `pulled_subjects`): records as the server sent them, newest first.
 */
import type { Knex } from 'knex';

export type PulledResource = 'patrols' | 'events' | 'subjects';

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
  const row = rows[0] as { id: string; label: string; etag: string | null; record: string };
  const record = JSON.parse(row.record) as { patrol_segments?: SegmentRecord[] };
  const open = (record.patrol_segments ?? []).filter((s) => !s.time_range?.end_time).pop();
  return { id: row.id, serial: Number(row.label), createEntry: null, segment: open ? { id: open.id, startTime: open.time_range?.start_time ?? null } : null, etag: row.etag };
}
