/**
 * Appending to the change log, in the writing transaction (server/domain/sync/ports.ts
 * SyncRepository.append). Per call: lock the records (PostgreSQL), read their old memberships,
 * insert one `sync_changes` row each, replace their `sync_members` rows at the new version, and
 * apply the count/checksum deltas to `sync_scope_sums`. A handful of statements whatever the
 * number of entries (multi-row, chunked), without the query builder (statements.ts), since this
 * runs in every write transaction: SQLite 3 or 4 (the old memberships come from the repository),
 * PostgreSQL 3 (append-postgres.ts: the lock, the changes with the old memberships, the rest).
 */
import { fnv1a32, recordTerm, shardOf } from '../../../protocol/checksum.js';
import type { RecordKind } from '../../../protocol/sync.js';
import type { LogEntry } from '../../domain/sync/ports.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { insertChangesPostgres, writeMembersPostgres } from './append-postgres.js';
import { type Inserted, type MemberRow, MOD, ROWS, recordKey, type SumDelta, SUMS_UPSERT } from './append-rows.js';
import type { OldMember } from './members.js';
import { chunks, list, run, tuple } from './statements.js';

/**
 * The advisory lock of one record (PostgreSQL): 64 bits from the tenant and kind (high half)
 * and the id (low half). A collision only makes two records share a lock, which is harmless.
 */
export function recordLockKey(tenantId: string, kind: string, id: string): bigint {
  return BigInt.asIntN(64, (BigInt(fnv1a32(`sync\n${tenantId}\n${kind}`)) << 32n) | BigInt(fnv1a32(id)));
}

/** The memberships of `ids` of one kind before this append, by id (members.ts readMembers). */
export type OldMembersOf = (kind: RecordKind, ids: readonly string[]) => Promise<Map<string, OldMember[]>>;

/**
 * SQLite: `oldMembersOf` answers the records' memberships (known not to have changed since they
 * were read: writers are serialised). PostgreSQL reads them in the change rows' insert, after
 * the records' locks are taken (an append that committed meanwhile is then seen).
 */
export async function appendChanges(db: Executor, dialect: Dialect, tenantId: string, entries: readonly LogEntry[], at: number, oldMembersOf: OldMembersOf): Promise<void> {
  // One change per record and call (the last entry of a record wins).
  const byRecord = new Map<string, LogEntry>();
  for (const entry of entries) byRecord.set(recordKey(entry.kind, entry.id), entry);
  const unique = [...byRecord.values()];
  if (unique.length === 0) return;

  if (dialect === 'postgres') {
    // Before the position is taken: a record's changes then get positions (versions) in the
    // order they commit. Sorted, so two transactions touching the same records never deadlock.
    const lockKeys = [...new Set(unique.map((e) => recordLockKey(tenantId, e.kind, e.id)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    await db.raw('SELECT pg_advisory_xact_lock(k) FROM unnest(?::bigint[]) AS u(k)', [`{${lockKeys.join(',')}}`]);
  }
  const { positions, old } = dialect === 'postgres' ? await insertChangesPostgres(db, tenantId, unique, at) : await insertChanges(db, tenantId, unique, at, oldMembersOf);

  // Memberships: every old row of these records goes, the new keys come at the new version.
  const withOld = unique.filter((entry) => old.has(recordKey(entry.kind, entry.id)));
  const members: MemberRow[] = [];
  const deltas = new Map<string, SumDelta>();
  const delta = (key: string, shard: number, n: number, term: number) => {
    const id = `${key}\n${shard}`;
    const d = deltas.get(id) ?? { key, shard, n: 0, sum: 0 };
    d.n += n;
    d.sum = (((d.sum + term) % MOD) + MOD) % MOD;
    deltas.set(id, d);
  };
  for (const entry of unique) {
    const shard = shardOf(entry.id);
    for (const member of old.get(recordKey(entry.kind, entry.id)) ?? []) delta(member.key, shard, -1, -member.hash);
    if (entry.op !== 'put') continue;
    const version = positions.get(recordKey(entry.kind, entry.id));
    if (version === undefined) throw new Error(`sync_changes insert returned no position for ${entry.kind} ${entry.id}`);
    const hash = recordTerm(entry.kind, entry.id, version);
    for (const key of new Set(entry.scopes)) {
      members.push({ key, kind: entry.kind, id: entry.id, version, hash });
      delta(key, shard, 1, hash);
    }
  }
  // One row per (key, shard), in a fixed order: concurrent writers of busy scopes take the
  // sums' row locks in the same order (no deadlock).
  const sums = [...deltas.values()].filter((d) => d.n !== 0 || d.sum !== 0).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.shard - b.shard));
  if (dialect === 'postgres' && withOld.length <= ROWS && members.length <= ROWS && sums.length <= ROWS) {
    await writeMembersPostgres(db, tenantId, withOld, members, sums);
    return;
  }

  for (const [kind, ids] of groupIds(withOld)) {
    for (const chunk of chunks(ids, ROWS)) {
      await run(db, dialect, `DELETE FROM sync_members WHERE tenant_id = ? AND kind = ? AND record_id IN (${list(chunk.length)})`, [tenantId, kind, ...chunk]);
    }
  }
  for (const chunk of chunks(members, ROWS)) {
    await run(db, dialect, `INSERT INTO sync_members (tenant_id, scope_key, kind, record_id, version, hash) VALUES ${Array(chunk.length).fill(tuple(6)).join(', ')}`, chunk.flatMap((m) => [tenantId, m.key, m.kind, m.id, m.version, m.hash]));
  }
  for (const chunk of chunks(sums, ROWS)) await run(db, dialect, SUMS_UPSERT(chunk.length), chunk.flatMap((d) => [tenantId, d.key, d.shard, d.n, d.sum]));
}

function groupIds(entries: readonly LogEntry[]): Map<RecordKind, string[]> {
  const out = new Map<RecordKind, string[]>();
  for (const entry of entries) {
    const ids = out.get(entry.kind);
    if (ids) ids.push(entry.id);
    else out.set(entry.kind, [entry.id]);
  }
  return out;
}

/** SQLite: the change rows (their old memberships as `oldMembersOf` answers). */
async function insertChanges(db: Executor, tenantId: string, unique: readonly LogEntry[], at: number, oldMembersOf: OldMembersOf): Promise<Inserted> {
  const old = new Map<string, OldMember[]>();
  for (const [kind, ids] of groupIds(unique)) {
    for (const [id, members] of await oldMembersOf(kind, ids)) old.set(recordKey(kind, id), members);
  }
  const positions = new Map<string, number>();
  for (const chunk of chunks(unique, ROWS)) {
    const values = chunk.flatMap((entry) => [
      tenantId,
      entry.kind,
      entry.id,
      entry.op,
      (entry.op === 'put' ? entry.scopes : []).join(' '),
      (old.get(recordKey(entry.kind, entry.id)) ?? []).map((m) => m.key).sort().join(' '),
      at,
    ]);
    const sql = `INSERT INTO sync_changes (tenant_id, kind, record_id, op, scopes, old_scopes, at) VALUES ${Array(chunk.length).fill(tuple(7)).join(', ')} RETURNING position, kind, record_id`;
    for (const row of await run(db, 'sqlite', sql, values)) positions.set(recordKey(String(row.kind), String(row.record_id)), Number(row.position));
  }
  return { positions, old };
}
