/**
 * Who recorded an outbox entry (issue 26 §7). Every entry is stamped, when queued, with the
 * mirror's identity (sync/mirror/identity.ts): the user logged in when it was recorded, and the
 * server it is for. A push sends only the entries of the mirror's current user (the session's:
 * every command that connects gives the mirror to its user), see `OutboxStore.pending`; the
 * others stay pending, held for their users.
 *
 * Entries from before identities were kept carry what the mirror knew then (server and
 * username); entries with no server at all (a mirror no session ever said who it was) are
 * anyone's, as they always were.
 */
import { sameUser, type UserIdentity } from '../mirror/identity.js';
import type { OutboxEntry } from './model.js';
import type { OutboxStore } from './store.js';

export function ownerOf(entry: OutboxEntry): UserIdentity | null {
  // An entry stamped with a server but no user (a mirror a token session used before identities
  // were kept) is anyone's, as it always was: nobody could log in as "no one" to send it.
  if (!entry.server || (!entry.userId && !entry.username)) return null;
  return { server: entry.server, userId: entry.userId ?? null, username: entry.username ?? null };
}

/** True when `me` may send the entry: recorded by `me`, or by nobody known. */
export function recordedBy(entry: OutboxEntry, me: UserIdentity): boolean {
  const owner = ownerOf(entry);
  return owner === null || sameUser(owner, me);
}

/** Pending entries recorded by someone other than `me` (or for another server), in recorded order. */
export async function heldForOthers(outbox: OutboxStore, me: UserIdentity): Promise<OutboxEntry[]> {
  return (await outbox.list({ status: ['pending'] })).filter((entry) => !recordedBy(entry, me));
}
