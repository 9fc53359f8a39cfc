/**
 * Deciding a conflict (`fieldops outbox resolve <id> --mine|--theirs`):
 * - theirs: the server's version stays; the entry is closed as dropped (its reason says so).
 *   Entries that depended on it stay rejected.
 * - mine: the laptop's version is sent again as an update based on the server's current version
 *   (`If-Match` with the ETag read at the conflict), so a third change in the meantime is still
 *   caught. A create that met other content under its id becomes a PATCH of that record. Entries
 *   rejected because they depended on it are queued again.
 */
import { failure } from '../errors.js';
import type { OutboxEntry } from './model.js';
import type { OutboxStore } from './store.js';

const UPDATE_OF: Partial<Record<OutboxEntry['kind'], OutboxEntry['kind']>> = {
  'event.create': 'event.update',
  'event.update': 'event.update',
  'patrol.create': 'patrol.update',
  'patrol.update': 'patrol.update',
};

export async function resolveConflict(outbox: OutboxStore, entry: OutboxEntry, choice: 'mine' | 'theirs'): Promise<void> {
  if (entry.status !== 'conflict') throw failure('usage', `${entry.id} is ${entry.status}, not in conflict`, '`fieldops outbox` lists the conflicts');
  if (choice === 'theirs') {
    await outbox.settle([{ id: entry.id, status: 'dropped', reason: 'conflict resolved: the server\'s version kept' }]);
    return;
  }
  const kind = UPDATE_OF[entry.kind];
  if (!kind) throw failure('usage', `a ${entry.kind} cannot be forced over the server's version`, 'resolve it with --theirs, then record it again');
  const theirs = entry.theirs as { etag?: string | null } | null;
  const body = { ...(entry.body as Record<string, unknown>) };
  delete body.id;
  await outbox.requeue(entry.id, { kind, body, baseEtag: theirs?.etag ?? null });
  for (const dependent of await outbox.dependents(entry.id)) {
    if (dependent.status === 'rejected' && dependent.reason?.includes(entry.id)) await outbox.requeue(dependent.id);
  }
}
