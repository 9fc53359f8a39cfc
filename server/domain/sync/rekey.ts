/**
 * Continuing a cursor whose granted key set changed (docs/sync.md §Key-set changes). The day
 * keys of a laptop's window move every day, a subject group becomes visible, a permission is
 * revoked, the laptop adds a `--scope`: none of these should cost the laptop a new snapshot of
 * everything it holds.
 *
 * The cursor carries `k`, the hash of the key set it was made for; the laptop names that set in
 * `previous_scopes` (the `granted` of the page its cursor came from). With G the keys granted
 * now and P the previous ones:
 *
 * - keys dropped (P − G): nothing is sent. The page's `granted` no longer lists them and the
 *   laptop drops the rows no granted key justifies.
 * - keys added (A = G − P): a cursor in the log phase at position c becomes a snapshot of only
 *   A's members (each served with every key of G it is in), then the log from c, filtered by G
 *   as always. Whatever changed after c is served again by the log: the laptop ignores what it
 *   already holds at that version. A cursor still in its first snapshot (of every key) cannot
 *   take keys on; it is answered 410 `sync_scopes_changed` (the laptop starts over).
 *
 * Without `previous_scopes`, or when they are not the set the cursor was made for, a changed
 * set is answered 410 `sync_scopes_changed` as before: the server cannot know what the laptop
 * holds.
 */
import { MAX_SCOPE_KEYS } from '../../../protocol/sync.js';
import { type FeedCursor, keySetHash } from './cursor.js';
import { SyncFeedError } from './feed-errors.js';

/** The cursor to serve `granted` (hash `k`) from; throws 410 when it cannot be continued. */
export function rekeyed(given: FeedCursor, granted: readonly string[], k: string, previous: readonly string[] | undefined): FeedCursor {
  if (given.k === k) return given;
  if (!previous || keySetHash(previous) !== given.k) throw SyncFeedError.scopesChanged();
  const had = new Set(previous);
  const added = granted.filter((key) => !had.has(key));
  const now = new Set(granted);
  if (given.phase === 'log') {
    if (added.length === 0) return { ...given, k };
    if (added.length > MAX_SCOPE_KEYS) throw SyncFeedError.scopesChanged();
    return { v: 1, phase: 'snapshot', snap: { after: null, keys: added }, start: given.c, c: given.c, f: given.f, k };
  }
  if (!given.snap.keys) {
    // The first snapshot: a dropped key only leaves it (the keyset goes on over fewer keys).
    if (added.length > 0) throw SyncFeedError.scopesChanged();
    return { ...given, k };
  }
  // A partial snapshot under way: its keys still granted, and the added ones.
  const kept = given.snap.keys.filter((key) => now.has(key));
  const keys = [...new Set([...kept, ...added])].sort();
  if (keys.length > MAX_SCOPE_KEYS) throw SyncFeedError.scopesChanged();
  if (keys.length === 0) return { v: 1, phase: 'log', snap: { after: null }, start: given.start, c: given.start, f: given.f, k };
  // Only dropped keys: the keyset goes on. Added ones: the partial snapshot starts over (its
  // members already served are served again; the log still begins at the same `start`).
  return { ...given, snap: { after: added.length === 0 ? given.snap.after : null, keys }, k };
}
