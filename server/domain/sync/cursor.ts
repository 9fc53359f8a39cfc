/**
 * The feed's cursor (protocol/sync.ts FeedPage.cursor): opaque to the laptop, base64url of a
 * small JSON object. Tampering gains nothing: the grants are recomputed on every request and
 * the fingerprint only says whether they are still the ones the cursor was issued under.
 *
 * - `phase: 'snapshot'`: serving the current state from `sync_members`, keyset after `snap`
 *   (`null`: from the start); `start` is where the log phase begins once the snapshot is done.
 * - `phase: 'log'`: serving `sync_changes` after `c` in (txid, position) order.
 * - `f`: fingerprint of the granted keys and who asked (`fingerprintOf`).
 */
import { createHash } from 'node:crypto';
import { RECORD_KINDS, type RecordKind } from '../../../protocol/sync.js';
import { InputError } from '../errors.js';

/** (txid, position): txid is 0 on SQLite. */
export type LogPosition = readonly [number, number];

export interface FeedCursor {
  v: 1;
  phase: 'snapshot' | 'log';
  snap: { after: readonly [RecordKind, string] | null };
  start: LogPosition;
  c: LogPosition;
  f: string;
}

/** Longest cursor text accepted (the route's schema bounds it too). */
export const MAX_CURSOR_LENGTH = 1024;

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
  const after = c.snap?.after;
  if (after !== null && after !== undefined) {
    if (!Array.isArray(after) || after.length !== 2 || !(RECORD_KINDS as readonly unknown[]).includes(after[0]) || typeof after[1] !== 'string' || after[1].length > 64) throw invalid();
  }
  return { v: 1, phase: c.phase, snap: { after: after ? [after[0] as RecordKind, after[1] as string] : null }, start: [c.start[0], c.start[1]], c: [c.c[0], c.c[1]], f: c.f };
}

/** Lexicographic order of log positions. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  return a[0] - b[0] || a[1] - b[1];
}

/**
 * Who asked and what they were granted: a cursor issued under other grants (a permission
 * revoked, a subject group no longer visible, another profile) is answered 410
 * `sync_scopes_changed`, since what the laptop holds was chosen by the old grants.
 */
export function fingerprintOf(granted: readonly string[], who: { tenantId: string; userId: string; profileId: string | null }): string {
  const parts = [[...granted].sort(), who.userId, who.tenantId, who.profileId ?? ''];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32);
}
