/**
 * Deciding a conflict (`fieldops outbox resolve <id> [--field F] --mine|--theirs`).
 *
 * A conflict the server's merge kept (rows in outbox_conflicts, conflicts.ts): one
 * `conflict.resolve` entry is queued per open field (or the one named), offline; the next push
 * sends them, and the entry is `sent` once the server settled every field.
 *
 * A conflict of the one-by-one push (a 412, or a create meeting other content, 409):
 * - theirs: the server's version stays; the entry is closed as dropped (its reason says so).
 *   Entries that depended on it stay rejected.
 * - mine: the laptop's version is sent again as an update based on the server's version read at
 *   the conflict (its revision, else its ETag), so a third change in the meantime is still caught.
 *   A create that met other content under its id becomes an update of that record. Entries
 *   rejected because they depended on it are queued again.
 */
import { failure } from '../errors.js';
import { listConflicts, queueResolution, type ConflictChoice } from './conflicts.js';
import type { OutboxEntry } from './model.js';
import type { OutboxStore } from './store.js';

const UPDATE_OF: Partial<Record<OutboxEntry['kind'], OutboxEntry['kind']>> = {
  'event.create': 'event.update',
  'event.update': 'event.update',
  'patrol.create': 'patrol.update',
  'patrol.update': 'patrol.update',
};

/** Returns the `conflict.resolve` entries queued (empty for a conflict of the one-by-one push). */
export async function resolveConflict(outbox: OutboxStore, entry: OutboxEntry, choice: ConflictChoice, field?: string): Promise<string[]> {
  if ((await listConflicts(outbox.knex, { entryId: entry.id })).length > 0) return queueResolution(outbox, entry, choice, field);
  if (entry.status !== 'conflict') throw failure('usage', `${entry.id} is ${entry.status}, not in conflict`, '`fieldops outbox` lists the conflicts');
  if (field !== undefined) throw failure('usage', `${entry.id} is a conflict of the whole record, not of fields`, 'resolve it without --field');
  if (choice === 'theirs') {
    await outbox.settle([{ id: entry.id, status: 'dropped', reason: 'conflict resolved: the server\'s version kept' }]);
    return [];
  }
  const kind = UPDATE_OF[entry.kind];
  if (!kind) throw failure('usage', `a ${entry.kind} cannot be forced over the server's version`, 'resolve it with --theirs, then record it again');
  const theirs = entry.theirs as { etag?: string | null; record?: { revision?: unknown } } | null;
  const revision = typeof theirs?.record?.revision === 'number' ? theirs.record.revision : null;
  const body = { ...(entry.body as Record<string, unknown>) };
  delete body.id;
  await outbox.requeue(entry.id, { kind, body, baseEtag: theirs?.etag ?? null, baseRevision: revision, baseEntry: null });
  for (const dependent of await outbox.dependents(entry.id)) {
    if (dependent.status === 'rejected' && dependent.reason?.includes(entry.id)) await outbox.requeue(dependent.id);
  }
  return [];
}
