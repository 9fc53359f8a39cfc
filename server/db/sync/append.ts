/**
 * Appending to the change log, in the writing transaction (server/domain/sync/ports.ts
 * SyncRepository.append). Per call: lock the records (PostgreSQL), read their old memberships,
 * insert one `sync_changes` row each, replace their `sync_members` rows at the new version, and
 * apply the count/checksum deltas to `sync_scope_sums`. A handful of statements whatever the
 * number of entries (multi-row, chunked), since this runs in every write transaction.
 */
import { fnv1a32, recordTerm, shardOf } from '../../../protocol/checksum.js';
import type { RecordKind } from '../../../protocol/sync.js';
import type { LogEntry } from '../../domain/sync/ports.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { chunks } from './facts.js';

const MOD = 4294967296;
/** Rows per multi-row statement (8 columns at most: far below SQLite's variable limit). */
const ROWS = 250;

interface OldMember {
  key: string;
  hash: number;
}

const recordKey = (kind: string, id: string) => `${kind}\n${id}`;

/**
 * The advisory lock of one record (PostgreSQL): 64 bits from the tenant and kind (high half)
 * and the id (low half). A collision only makes two records share a lock, which is harmless.
 */
export function recordLockKey(tenantId: string, kind: string, id: string): bigint {
  return BigInt.asIntN(64, (BigInt(fnv1a32(`sync\n${tenantId}\n${kind}`)) << 32n) | BigInt(fnv1a32(id)));
}

export async function appendChanges(db: Executor, dialect: Dialect, tenantId: string, entries: readonly LogEntry[], at: number): Promise<void> {
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

  const old = await oldMembers(db, tenantId, unique);
  const positions = new Map<string, number>();
  for (const chunk of chunks(unique, ROWS)) {
    const rows = chunk.map((entry) => ({
      tenant_id: tenantId,
      kind: entry.kind,
      record_id: entry.id,
      op: entry.op,
      scopes: (entry.op === 'put' ? entry.scopes : []).join(' '),
      old_scopes: (old.get(recordKey(entry.kind, entry.id)) ?? []).map((m) => m.key).sort().join(' '),
      at,
    }));
    const inserted = (await db('sync_changes').insert(rows).returning(['position', 'kind', 'record_id'])) as Array<{ position: unknown; kind: string; record_id: string }>;
    for (const row of inserted) positions.set(recordKey(row.kind, row.record_id), Number(row.position));
  }

  // Memberships: every old row of these records goes, the new keys come at the new version.
  const withOld = unique.filter((entry) => old.has(recordKey(entry.kind, entry.id)));
  for (const [kind, ids] of groupIds(withOld)) {
    for (const chunk of chunks(ids, ROWS)) await db('sync_members').where({ tenant_id: tenantId, kind }).whereIn('record_id', chunk).delete();
  }
  const members: Array<Record<string, unknown>> = [];
  const deltas = new Map<string, { key: string; shard: number; n: number; sum: number }>();
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
      members.push({ tenant_id: tenantId, scope_key: key, kind: entry.kind, record_id: entry.id, version, hash });
      delta(key, shard, 1, hash);
    }
  }
  for (const chunk of chunks(members, ROWS)) await db('sync_members').insert(chunk);

  // One row per (key, shard) per statement, in a fixed order: concurrent writers of busy
  // scopes take the sums' row locks in the same order (no deadlock).
  const sums = [...deltas.values()].filter((d) => d.n !== 0 || d.sum !== 0).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.shard - b.shard));
  for (const chunk of chunks(sums, ROWS)) {
    await db('sync_scope_sums')
      .insert(chunk.map((d) => ({ tenant_id: tenantId, scope_key: d.key, shard: d.shard, n: d.n, sum: d.sum })))
      .onConflict(['tenant_id', 'scope_key', 'shard'])
      .merge({ n: db.raw('sync_scope_sums.n + excluded.n'), sum: db.raw(`(sync_scope_sums.sum + excluded.sum) % ${MOD}`) });
  }
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

async function oldMembers(db: Executor, tenantId: string, entries: readonly LogEntry[]): Promise<Map<string, OldMember[]>> {
  const out = new Map<string, OldMember[]>();
  for (const [kind, ids] of groupIds(entries)) {
    for (const chunk of chunks(ids, ROWS)) {
      const rows = (await db('sync_members').where({ tenant_id: tenantId, kind }).whereIn('record_id', chunk).select('record_id', 'scope_key', 'hash')) as Array<{ record_id: string; scope_key: string; hash: unknown }>;
      for (const row of rows) {
        const key = recordKey(kind, row.record_id);
        const list = out.get(key) ?? [];
        list.push({ key: row.scope_key, hash: Number(row.hash) });
        out.set(key, list);
      }
    }
  }
  return out;
}
