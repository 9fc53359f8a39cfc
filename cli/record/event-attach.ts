/**
 * Files attached offline (issue 26 §5): `fieldops events new … --file F`, `fieldops events attach
 * <event> F` and `fieldops patrols attach <patrol> F` all stage the file here. The file is copied
 * beside the mirror (`<mirror>.files/<sha256>`, sync/outbox/attachments.ts) so what is pushed is
 * what was attached, and checked against the local maximum and the server's advertised
 * `Tus-Max-Size` (from the last push that asked, `mirror_identity.upload_max_bytes`), so a file
 * the server would refuse is refused now, offline, not at push time.
 *
 * The entry's body is `{id, stored, sha256, size, filename, comment}`; it depends on the record's
 * create when that was made offline and not yet sent. The push uploads the copy (tus,
 * sync/push/uploads.ts) and then attaches it by upload id.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ClientFailure } from '../../sync/errors.js';
import { mirrorFolderHint } from '../../sync/mirror/open-failure.js';
import { MAX_ATTACHMENT_BYTES, releaseStagedFile, stageFile, type StagedFileBody } from '../../sync/outbox/attachments.js';
import { newId } from '../../sync/outbox/ids.js';
import type { NewEntry, OutboxEntry } from '../../sync/outbox/model.js';
import { readUploadMaxBytes } from '../../sync/outbox/uploads-store.js';
import { UserFacingError } from '../errors.js';
import type { OfflineStores } from './open.js';

export interface FileToAttach {
  path: string;
  comment: string;
}

/** 5000 → "4.9 KiB", 53477376 → "51 MiB". */
function mib(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${Number((bytes / 1024 / 1024).toFixed(1))} MiB`;
}

/** The largest file this laptop may queue now: the local maximum, or the server's when lower. */
async function maxBytes(stores: OfflineStores): Promise<{ bytes: number; whose: string }> {
  const server = await readUploadMaxBytes(stores.outbox.knex);
  return server !== null && server < MAX_ATTACHMENT_BYTES ? { bytes: server, whose: 'the server\'s upload limit' } : { bytes: MAX_ATTACHMENT_BYTES, whose: 'the largest file fieldops attaches' };
}

function tooLarge(file: string, size: number, max: { bytes: number; whose: string }): UserFacingError {
  return new UserFacingError(`${file} is ${mib(size)}, over ${max.whose} (${mib(max.bytes)})`, 'attach a smaller file (a photo can be resized or compressed first)', 2);
}

/**
 * Stages each file (size-checked, copied beside the mirror) and returns the bodies of their
 * entries. If any file fails, the copies made for the others are removed again (unless another
 * entry already uses the same bytes) and nothing is returned.
 */
export async function stageFiles(stores: OfflineStores, files: FileToAttach[]): Promise<StagedFileBody[]> {
  const max = await maxBytes(stores);
  const staged: StagedFileBody[] = [];
  try {
    for (const file of files) {
      let size: number;
      try {
        const stat = fs.statSync(file.path);
        if (!stat.isFile()) throw new UserFacingError(`${file.path} is not a regular file`, 'attach a file, not a folder or a device', 2);
        size = stat.size;
      } catch (error) {
        if (error instanceof UserFacingError) throw error;
        throw new UserFacingError(`cannot read ${file.path}`, 'check the path', 2);
      }
      if (size > max.bytes) throw tooLarge(file.path, size, max);
      const directory = `${stores.file}.files`;
      let copy: ReturnType<typeof stageFile>;
      try {
        copy = stageFile(directory, file.path, { doing: `copy ${file.path} to ${directory} (beside the mirror)`, hint: mirrorFolderHint(stores.file) });
      } catch (error) {
        // A failure writing the copy is a ClientFailure naming the folder; one reading the file is the user's path.
        if (error instanceof ClientFailure || !(error as NodeJS.ErrnoException).code) throw error;
        throw new UserFacingError(`cannot read ${file.path}`, 'check the path and its permissions', 2);
      }
      const body: StagedFileBody = { id: newId(), stored: copy.stored, sha256: copy.sha256, size: copy.size, filename: path.basename(file.path), comment: file.comment };
      staged.push(body);
      // The file grew between the check and the copy.
      if (copy.size > max.bytes) throw tooLarge(file.path, copy.size, max);
    }
    return staged;
  } catch (error) {
    await discardStaged(stores, staged);
    throw error;
  }
}

/** Removes copies staged for entries that were never queued (kept when a queued entry uses the same bytes). */
export async function discardStaged(stores: OfflineStores, staged: StagedFileBody[]): Promise<void> {
  for (const body of staged) await releaseStagedFile(stores.outbox.knex, { id: body.id, kind: 'event.file', body }, null, { dropped: true });
}

/** The entries of staged files attached to `target` (after `dependsOn` when that is unsent). */
export function fileEntries(kind: 'event.file' | 'patrol.file', target: string, dependsOn: string | null, staged: StagedFileBody[]): NewEntry[] {
  return staged.map((body) => ({ id: body.id, kind, target, dependsOn, body }));
}

/** Queues staged files; the copies go again if the queueing fails. */
async function enqueueFiles(stores: OfflineStores, entries: NewEntry[], staged: StagedFileBody[]): Promise<void> {
  try {
    await stores.outbox.enqueue(entries);
  } catch (error) {
    await discardStaged(stores, staged);
    throw error;
  }
}

/**
 * An event the laptop knows, found as `events state` finds it: recorded here (its create entry,
 * pending or sent) or pulled, by id or a unique prefix of 4 or more characters.
 */
export async function findEvent(stores: OfflineStores, ref: string): Promise<{ id: string; create: OutboxEntry | null }> {
  const creates = (await stores.outbox.findByPrefix(ref)).filter((e) => e.kind === 'event.create' && (e.status === 'pending' || e.status === 'sent'));
  const prefix = ref.toLowerCase().replace(/[%_]/g, '');
  const pulled: Array<{ id: string }> = await stores.outbox.knex('pulled_events').where('id', 'like', `${prefix}%`).limit(2).select('id');
  const candidates = new Set([...creates.map((e) => e.id), ...pulled.map((p) => p.id)]);
  if (candidates.size !== 1 || (ref.length < 4 && !candidates.has(ref))) {
    throw new UserFacingError(candidates.size ? `"${ref}" matches ${candidates.size} events` : `no event "${ref}" on this laptop`, '`fieldops events list` shows the events pulled and recorded here (give more of the id)', 2);
  }
  const [id] = [...candidates] as [string];
  return { id, create: creates.find((e) => e.id === id) ?? null };
}

export async function attachToEvent(stores: OfflineStores, ref: string, file: string, comment: string): Promise<{ id: string; event: string; file: StagedFileBody }> {
  const event = await findEvent(stores, ref);
  const staged = await stageFiles(stores, [{ path: file, comment }]);
  // A create not yet sent goes first; a sent one (or a pulled event) is on the server already.
  const dependsOn = event.create && event.create.status !== 'sent' ? event.create.id : null;
  await enqueueFiles(stores, fileEntries('event.file', event.id, dependsOn, staged), staged);
  return { id: staged[0]!.id, event: event.id, file: staged[0]! };
}

/** `patrols attach`: the same staging, as a `patrol.file` entry. */
export async function attachToPatrol(stores: OfflineStores, ref: string, file: string, comment: string): Promise<{ id: string; patrol: string; file: StagedFileBody }> {
  const { findPatrol } = await import('./patrols.js');
  const patrol = await findPatrol(stores, ref);
  const staged = await stageFiles(stores, [{ path: file, comment }]);
  const dependsOn = patrol.createEntry && patrol.createEntry.status !== 'sent' ? patrol.createEntry.id : null;
  await enqueueFiles(stores, fileEntries('patrol.file', patrol.id, dependsOn, staged), staged);
  return { id: staged[0]!.id, patrol: patrol.id, file: staged[0]! };
}
