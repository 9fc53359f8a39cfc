/**
 * Patrols recorded offline: start (a patrol with one segment, both with ids chosen here), end,
 * notes and files. Each is one outbox entry in its own transaction; what depends on a patrol
 * created offline names its entry, so the push sends the patrol first and skips its dependants
 * if it is refused. An end records its base (sync/outbox/bases.ts): the patrol's latest earlier
 * entry, else the revision pulled (patrols carry no ETag, rule 8); the server merges it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mirrorFolderHint } from '../../sync/mirror/open-failure.js';
import { storeAttachment } from '../../sync/outbox/attachments.js';
import { recordBase } from '../../sync/outbox/bases.js';
import { newId } from '../../sync/outbox/ids.js';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { UserFacingError } from '../errors.js';
import { findType } from '../offline/types.js';
import type { OfflineStores } from './open.js';

export const MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;

interface Leader {
  id: string;
  name?: string;
}

/** A patrol the laptop knows: created offline (its outbox entry) or pulled (its record and revision). */
export interface KnownPatrol {
  id: string;
  serial: number | null;
  createEntry: OutboxEntry | null;
  /** The segment to end: the last one without an end time. */
  segment: { id: string; startTime: string | null } | null;
  /** Of a pulled patrol: the revision pulled (null from a server that serves none) and its ETag (older servers only). */
  revision?: number | null;
  etag: string | null;
}

export async function startPatrol(stores: OfflineStores, options: { type: string; title?: string; leader?: string; location?: { latitude: number; longitude: number }; now: number }) {
  const { item } = await findType(stores.mirror, options.type, ['patrol']);
  const id = newId();
  const segmentId = newId();
  const segment: Record<string, unknown> = { id: segmentId, patrol_type: item.value, time_range: { start_time: new Date(options.now).toISOString() } };
  if (options.leader) segment.leader = { content_type: 'observations.subject', id: (await findLeader(stores, options.leader)).id };
  if (options.location) segment.start_location = options.location;
  const body: Record<string, unknown> = { id, state: 'open', patrol_segments: [segment] };
  if (options.title !== undefined) body.title = options.title;
  await stores.outbox.enqueue([{ id, kind: 'patrol.create', target: id, body }]);
  return { id, segmentId, body };
}

export async function endPatrol(stores: OfflineStores, ref: string, options: { location?: { latitude: number; longitude: number }; now: number }) {
  const patrol = await findPatrol(stores, ref);
  if (!patrol.segment) throw new UserFacingError(`patrol ${ref} has no open segment`, 'it has ended already (`fieldops patrols list` shows it)');
  const segment: Record<string, unknown> = { id: patrol.segment.id, time_range: { start_time: patrol.segment.startTime, end_time: new Date(options.now).toISOString() } };
  if (options.location) segment.end_location = options.location;
  const base = await recordBase(stores.outbox, 'patrol', patrol.id, patrol.createEntry ? null : { revision: patrol.revision ?? null, etag: patrol.etag });
  const id = newId();
  await stores.outbox.enqueue([{ id, kind: 'patrol.update', target: patrol.id, dependsOn: base.dependsOn, baseEntry: base.baseEntry, baseRevision: base.baseRevision, baseEtag: base.baseEtag, body: { patrol_segments: [segment] } }]);
  return { id, patrol: patrol.id };
}

export async function notePatrol(stores: OfflineStores, ref: string, text: string) {
  if (text.trim() === '' || text.length > 10000) throw new UserFacingError('a note is 1 to 10000 characters', undefined, 2);
  const patrol = await findPatrol(stores, ref);
  const id = newId();
  await stores.outbox.enqueue([{ id, kind: 'patrol.note', target: patrol.id, dependsOn: patrol.createEntry?.id ?? null, body: { id, text } }]);
  return { id, patrol: patrol.id };
}

/** The file is copied beside the mirror now: what is pushed is what was attached, even if the original moves. */
export async function attachToPatrol(stores: OfflineStores, ref: string, file: string, comment: string) {
  let bytes: Buffer;
  try {
    if (fs.statSync(file).size > MAX_ATTACHMENT_BYTES) throw new UserFacingError(`${file} is larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MiB`, 'attach a smaller file', 2);
    bytes = fs.readFileSync(file);
  } catch (error) {
    if (error instanceof UserFacingError) throw error;
    throw new UserFacingError(`cannot read ${file}`, 'check the path', 2);
  }
  const patrol = await findPatrol(stores, ref);
  const directory = `${stores.file}.files`;
  const stored = storeAttachment(directory, bytes, { doing: `copy ${file} to ${directory} (beside the mirror)`, hint: mirrorFolderHint(stores.file) });
  const id = newId();
  await stores.outbox.enqueue([{ id, kind: 'patrol.file', target: patrol.id, dependsOn: patrol.createEntry?.id ?? null, body: { id, stored, filename: path.basename(file), comment } }]);
  return { id, patrol: patrol.id };
}

async function findLeader(stores: OfflineStores, ref: string): Promise<Leader> {
  const document = (await stores.mirror.document('trackedby')) as { properties?: { leader?: { enum?: Leader[] } } } | null;
  const leaders = document?.properties?.leader?.enum ?? [];
  const found = leaders.filter((l) => l.id === ref.toLowerCase() || (l.name ?? '').toLowerCase() === ref.toLowerCase());
  if (found.length === 1) return found[0]!;
  if (found.length > 1) throw new UserFacingError(`"${ref}" names ${found.length} leaders`, 'give the subject id instead', 2);
  throw new UserFacingError(`no patrol leader "${ref}" in the mirror`, '`fieldops trackedby` lists who can lead; run `fieldops sync` if they were added recently', 2);
}

/** By id (or a unique prefix of one) or serial number: patrols created offline first, then pulled ones. */
export async function findPatrol(stores: OfflineStores, ref: string): Promise<KnownPatrol> {
  const creates = (await stores.outbox.findByPrefix(ref)).filter((e) => e.kind === 'patrol.create' && e.status !== 'dropped' && e.status !== 'rejected');
  if (creates.length === 1 && (ref.length >= 4 || creates[0]!.id === ref)) {
    const entry = creates[0]!;
    const body = entry.body as { patrol_segments?: Array<{ id: string; time_range?: { start_time?: string; end_time?: string } }> };
    const ends = (await stores.outbox.list({ status: ['pending', 'sent'] })).filter((e) => e.kind === 'patrol.update' && e.target === entry.id);
    const ended = new Set(ends.flatMap((e) => ((e.body as typeof body).patrol_segments ?? []).filter((s) => s.time_range?.end_time).map((s) => s.id)));
    const open = (body.patrol_segments ?? []).filter((s) => !s.time_range?.end_time && !ended.has(s.id)).pop();
    return { id: entry.id, serial: null, createEntry: entry, segment: open ? { id: open.id, startTime: open.time_range?.start_time ?? null } : null, etag: null };
  }
  const { pulledPatrol } = await import('../../sync/pull/pulled.js');
  const pulled = await pulledPatrol(stores.outbox.knex, ref);
  if (pulled) return pulled;
  throw new UserFacingError(`no patrol "${ref}" on this laptop`, '`fieldops patrols list` shows the patrols pulled and started here (by serial number or id)', 2);
}
