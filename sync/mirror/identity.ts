/**
 * Whose mirror this is (table `mirror_identity`, migrations/mirror/20261127_0101_identity.ts):
 * the client id sent with every request, and the user whose pulled records the mirror holds and
 * who records entries now. Outbox entries carry their own user (sync/outbox/owner.ts); this is
 * the identity the next entry is stamped with.
 *
 * Contract:
 * - `adoptIdentity` (login, and every command that connects) is one transaction: when the server
 *   or the user differ from the mirror's, everything pulled goes (records, catalogs, documents,
 *   validators, checkpoints, the feed's state) before the new identity is stored; the outbox
 *   stays, each entry held for the user who recorded it.
 * - a mirror whose user logged out (`markSignedOut`) records nothing until someone logs in.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { resetFeed } from '../feed/state.js';

type Db = Knex | Knex.Transaction;

/** A user on a server. `userId` is null for sessions that do not know it (FIELDOPS_TOKEN, old logins). */
export interface UserIdentity {
  server: string;
  userId: string | null;
  username: string | null;
}

export interface MirrorIdentity {
  clientId: string;
  /** null: the mirror was never used by a session that said who it is. */
  user: UserIdentity | null;
  signedOut: boolean;
}

/** What the client id may be (the server ignores anything else). */
export const CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Tables of what was pulled besides the feed's own (sync/feed/state.ts `resetFeed` clears those). */
const PULLED_ELSEWHERE = ['pull_checkpoints', 'documents', 'checkpoints', 'mirror_meta', 'feed_state'];
/** Server tracks (migrations/mirror/20261129_0101_pulled_tracks.ts): a later migration, so looked for first. */
const PULLED_TRACKS = ['pulled_track_points', 'pulled_track_sources'];

async function keys(db: Db): Promise<Map<string, string>> {
  const rows: Array<{ key: string; value: string }> = await db('mirror_identity').select('key', 'value');
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function readMirrorIdentity(db: Db): Promise<MirrorIdentity> {
  const map = await keys(db);
  let clientId = map.get('client_id');
  if (!clientId || !CLIENT_ID.test(clientId)) {
    // Made by the migration; made again only if someone deleted it.
    clientId = randomUUID();
    await db('mirror_identity').insert({ key: 'client_id', value: clientId }).onConflict('key').merge();
  }
  const server = map.get('server');
  const user = server ? { server, userId: map.get('user_id') ?? null, username: map.get('username') ?? null } : null;
  return { clientId, user, signedOut: map.get('signed_out') === '1' };
}

/** The same user on the same server: by id when both know it, else by username. */
export function sameUser(a: UserIdentity, b: UserIdentity): boolean {
  if (a.server !== b.server) return false;
  if (a.userId && b.userId) return a.userId === b.userId;
  return (a.username ?? null) === (b.username ?? null);
}

export const describeUser = (user: UserIdentity): string => user.username ?? user.userId ?? 'an unknown user';

/**
 * Makes `who` the mirror's identity. Returns the previous one and whether what was pulled for it
 * was deleted. A mirror that never stored an identity is judged by what its feed or sync said.
 */
export async function adoptIdentity(knex: Knex, who: UserIdentity): Promise<{ previous: UserIdentity | null; reset: boolean }> {
  return knex.transaction(async (trx) => {
    const current = await readMirrorIdentity(trx);
    const previous = current.user ?? (await legacyIdentity(trx));
    const reset = previous !== null && !sameUser(previous, who);
    if (reset) {
      await resetFeed(trx, 'hard');
      for (const table of PULLED_ELSEWHERE) await trx(table).delete();
      for (const table of PULLED_TRACKS) if (await trx.schema.hasTable(table)) await trx(table).delete();
    }
    // A session that does not know the id (a profile saved before ids were kept) keeps the known one.
    const userId = who.userId ?? (!reset && previous ? previous.userId : null);
    const values: Record<string, string | null> = { server: who.server, user_id: userId, username: who.username, signed_out: null };
    for (const [key, value] of Object.entries(values)) {
      if (value === null) await trx('mirror_identity').where({ key }).delete();
      else await trx('mirror_identity').insert({ key, value }).onConflict('key').merge();
    }
    // Entries migrated from before identities knew the username only: now the id too.
    if (who.userId && who.username) {
      await trx('outbox').whereNull('user_id').where({ server: who.server, username: who.username }).update({ user_id: who.userId });
    }
    return { previous, reset };
  });
}

export async function markSignedOut(knex: Knex): Promise<void> {
  await knex('mirror_identity').insert({ key: 'signed_out', value: '1' }).onConflict('key').merge();
}

/** The identity a mirror from before `mirror_identity` held data for: the feed's, else the sync's. */
async function legacyIdentity(db: Db): Promise<UserIdentity | null> {
  const feed = await db('feed_state').where({ key: 'identity' }).first('value');
  if (typeof feed?.value === 'string') {
    const space = feed.value.indexOf(' ');
    const server = space < 0 ? feed.value : feed.value.slice(0, space);
    if (server) return { server, userId: null, username: (space < 0 ? '' : feed.value.slice(space + 1)) || null };
  }
  const rows: Array<{ key: string; value: string }> = await db('mirror_meta').whereIn('key', ['server', 'username']).select('key', 'value');
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const server = meta.get('server');
  return server ? { server, userId: null, username: meta.get('username') || null } : null;
}
