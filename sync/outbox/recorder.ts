/**
 * The columns an outbox entry is stamped with when queued: the mirror's identity
 * (sync/mirror/identity.ts), i.e. the user logged in when it was recorded and the server it is
 * for. See owner.ts for what a push does with them.
 */
import type { Knex } from 'knex';
import { failure } from '../errors.js';
import { readMirrorIdentity } from '../mirror/identity.js';

export interface OwnerColumns {
  user_id: string | null;
  username: string | null;
  server: string | null;
}

/** The columns an entry queued now is stamped with; refused while the mirror's user is logged out. */
export async function recorderColumns(db: Knex | Knex.Transaction): Promise<OwnerColumns> {
  const identity = await readMirrorIdentity(db);
  if (identity.signedOut) {
    throw failure('auth', 'log in first: an entry records who made it, and nobody is logged in on this mirror', 'run `fieldops login`, then record it again');
  }
  const user = identity.user;
  return { user_id: user?.userId ?? null, username: user?.username ?? null, server: user?.server ?? null };
}
