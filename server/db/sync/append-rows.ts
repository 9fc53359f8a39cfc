/** What the change log's append (append.ts, append-postgres.ts) writes, and its limits. */
import type { RecordKind } from '../../../protocol/sync.js';
import type { OldMember } from './members.js';

export const MOD = 4294967296;
/** Rows per multi-row statement (8 columns at most: far below SQLite's variable limit). */
export const ROWS = 250;

export const recordKey = (kind: string, id: string) => `${kind}\n${id}`;

export interface Inserted {
  /** The new change's position, by recordKey. */
  positions: Map<string, number>;
  /** The memberships before this change, by recordKey (a record in no scope: missing). */
  old: Map<string, OldMember[]>;
}

/** A `sync_members` row of the tenant being appended. */
export interface MemberRow {
  key: string;
  kind: RecordKind;
  id: string;
  version: number;
  hash: number;
}

/** A count/checksum delta of one (key, shard) of `sync_scope_sums`. */
export interface SumDelta {
  key: string;
  shard: number;
  n: number;
  sum: number;
}

/** Adds `rows` deltas (tenant_id, scope_key, shard, n, sum each) to `sync_scope_sums`. */
export const SUMS_UPSERT = (rows: number) =>
  `INSERT INTO sync_scope_sums (tenant_id, scope_key, shard, n, sum) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')}
   ON CONFLICT (tenant_id, scope_key, shard) DO UPDATE SET n = sync_scope_sums.n + excluded.n, sum = (sync_scope_sums.sum + excluded.sum) % ${MOD}`;
