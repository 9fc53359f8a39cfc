/**
 * The offline lists: what was pulled, plus what was recorded here and not yet pushed by the
 * mirror's current user (another user's queued records on a shared laptop are theirs: not shown).
 */
import { readMirrorIdentity } from '../../sync/mirror/identity.js';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { recordedBy } from '../../sync/outbox/owner.js';
import { pulledRows } from '../../sync/pull/pulled.js';
import type { OfflineStores } from './open.js';

/** The not-yet-pushed creates of `kind` recorded by the mirror's user (all, when no user is known). */
async function recordedHere(stores: OfflineStores, kind: OutboxEntry['kind']): Promise<OutboxEntry[]> {
  const me = (await readMirrorIdentity(stores.outbox.knex)).user;
  const entries = (await stores.outbox.list({ status: ['pending', 'rejected', 'conflict'] })).filter((e) => e.kind === kind);
  return me ? entries.filter((entry) => recordedBy(entry, me)) : entries;
}

export interface PatrolLine {
  serial: number | null;
  id: string;
  title: string | null;
  state: string;
  start: string | null;
  /** "server" (pulled), "queued" or "rejected" (recorded here). */
  origin: string;
}

export async function listPatrols(stores: OfflineStores): Promise<PatrolLine[]> {
  const local = await recordedHere(stores, 'patrol.create');
  const pulled = await pulledRows(stores.outbox.knex, 'patrols');
  const known = new Set(pulled.map((p) => p.id));
  const lines: PatrolLine[] = local.filter((e) => !known.has(e.id)).map((e) => {
    const body = e.body as { title?: string; patrol_segments?: Array<{ time_range?: { start_time?: string } }> };
    return { serial: null, id: e.id, title: body.title ?? null, state: 'open', start: body.patrol_segments?.[0]?.time_range?.start_time ?? null, origin: e.status === 'pending' ? 'queued' : e.status };
  });
  for (const p of pulled) {
    lines.push({ serial: Number(p.label) || null, id: p.id, title: (p.record.title as string | null) ?? null, state: p.state ?? '', start: p.sortTime, origin: 'server' });
  }
  return lines;
}

export interface EventLine {
  id: string;
  eventType: string;
  time: string | null;
  state: string;
  origin: string;
}

export async function listEvents(stores: OfflineStores): Promise<EventLine[]> {
  const local = await recordedHere(stores, 'event.create');
  const pulled = await pulledRows(stores.outbox.knex, 'events');
  const known = new Set(pulled.map((p) => p.id));
  const lines: EventLine[] = local.filter((e) => !known.has(e.id)).map((e) => {
    const body = e.body as { event_type: string; time?: string; state?: string };
    return { id: e.id, eventType: body.event_type, time: body.time ?? null, state: body.state ?? 'new', origin: e.status === 'pending' ? 'queued' : e.status };
  });
  for (const p of pulled) lines.push({ id: p.id, eventType: p.label, time: p.sortTime, state: p.state ?? '', origin: 'server' });
  return lines;
}
