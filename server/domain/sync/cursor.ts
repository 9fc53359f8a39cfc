/**
 * The feed's cursor (protocol/sync.ts FeedPage.cursor): opaque to the laptop, base64url of a
 * small JSON object. Tampering gains nothing: the grants are recomputed on every request, the
 * hashes only say whether a cursor can be continued, and a partial snapshot's keys only choose
 * among records of the keys granted now.
 *
 * - `phase: 'snapshot'`: serving the current state from `sync_members`, keyset after
 *   `snap.after` (`null`: from the start); `start` is where the log phase begins once the
 *   snapshot is done. `snap.keys` absent: the initial snapshot of every granted key; present:
 *   a snapshot of only those keys (added to a cursor already in the log phase, whose `start` is
 *   the log position it had reached).
 * - `phase: 'log'`: serving `sync_changes` after `c` in (txid, position) order.
 * - `f`: fingerprint of who reads (`fingerprintOf`); `k`: hash of the granted key set the
 *   cursor was made for (`keySetHash`). A changed key set is continued, not refused, when the
 *   laptop names the keys its cursor was made with (FeedRequest.previous_scopes).
 */
import { createHash } from 'node:crypto';
import { MAX_KEY_LENGTH, isScopeKey } from '../../../protocol/scope-keys.js';
import { MAX_SCOPE_KEYS, RECORD_KINDS, type RecordKind } from '../../../protocol/sync.js';
import { InputError } from '../errors.js';

/** (txid, position): txid is 0 on SQLite. */
export type LogPosition = readonly [number, number];

export interface FeedCursor {
  v: 1;
  phase: 'snapshot' | 'log';
  snap: { after: readonly [RecordKind, string] | null; keys?: readonly string[] };
  start: LogPosition;
  c: LogPosition;
  f: string;
  k: string;
}

/**
 * Longest cursor text accepted (the route's schema bounds it too): base64url of a cursor whose
 * `snap.keys` holds MAX_SCOPE_KEYS keys of MAX_KEY_LENGTH characters, with room to spare.
 */
export const MAX_CURSOR_LENGTH = Math.ceil(((MAX_SCOPE_KEYS * (MAX_KEY_LENGTH + 3) + 512) * 4) / 3);

export function encodeCursor(cursor: FeedCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

const invalid = () => InputError.field('cursor', 'invalid_cursor', 'The cursor is not one this server issued.', ['Send the cursor of the last page as it was received, or null to start over.']);

const isPosition = (value: unknown): value is LogPosition =>
  Array.isArray(value) && value.length === 2 && value.every((part) => Number.isSafeInteger(part) && (part as number) >= 0);

/** Throws InputError (400, `invalid_cursor`) for anything this server could not have issued. */
export function decodeCursor(text: string): FeedCursor {
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const c = value as Partial<FeedCursor> | null;
  if (!c || typeof c !== 'object' || c.v !== 1 || (c.phase !== 'snapshot' && c.phase !== 'log')) throw invalid();
  if (!isPosition(c.start) || !isPosition(c.c) || typeof c.f !== 'string' || c.f.length > 64) throw invalid();
  // A cursor from before `k` existed has an `f` of another meaning: it is answered 410, not 400.
  if (c.k !== undefined && (typeof c.k !== 'string' || c.k.length > 64)) throw invalid();
  const after = c.snap?.after;
  if (after !== null && after !== undefined) {
    if (!Array.isArray(after) || after.length !== 2 || !(RECORD_KINDS as readonly unknown[]).includes(after[0]) || typeof after[1] !== 'string' || after[1].length > 64) throw invalid();
  }
  const keys: unknown = c.snap?.keys;
  if (keys !== undefined && (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_SCOPE_KEYS || !keys.every((key) => typeof key === 'string' && isScopeKey(key)))) throw invalid();
  const snap = { after: after ? ([after[0] as RecordKind, after[1] as string] as const) : null, ...(keys ? { keys: keys as string[] } : {}) };
  return { v: 1, phase: c.phase, snap, start: [c.start[0], c.start[1]], c: [c.c[0], c.c[1]], f: c.f, k: c.k ?? '' };
}

/** Lexicographic order of log positions. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  return a[0] - b[0] || a[1] - b[1];
}

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 32);

/**
 * Who reads: a cursor issued to another user, tenant or acting profile is answered 410
 * `sync_scopes_changed` (what the laptop holds was chosen for someone else).
 */
export function fingerprintOf(who: { tenantId: string; userId: string; profileId: string | null }): string {
  return digest(['who', who.userId, who.tenantId, who.profileId ?? '']);
}

/** The key set a cursor was made for (order and repeats do not matter). */
export function keySetHash(keys: readonly string[]): string {
  return digest(['keys', ...[...new Set(keys)].sort()]);
}
