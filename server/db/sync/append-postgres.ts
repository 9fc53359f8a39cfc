/**
 * PostgreSQL's statements of the change log's append (append.ts), fewer round trips than the
 * portable ones: each runs in the writing transaction after the records' advisory locks.
 */
import type { LogEntry } from '../../domain/sync/ports.js';
import type { Executor } from '../rows.js';
import type { OldMember } from './members.js';
import { type Inserted, type MemberRow, ROWS, recordKey, type SumDelta, SUMS_UPSERT } from './append-rows.js';
import { chunks, run } from './statements.js';

/** The memberships of the change row's record, in the statement's snapshot. */
const MEMBERS_OF = (alias: string) => `FROM sync_members m WHERE m.tenant_id = ${alias}.tenant_id AND m.kind = ${alias}.kind AND m.record_id = ${alias}.record_id`;

/**
 * One statement: the change rows, their `old_scopes` and the old memberships (with their terms)
 * read in its own snapshot, taken after the locks. NOTE: keys are percent-encoded ASCII
 * (protocol/scope-keys.ts), so ordering them under the "C" collation is JavaScript's sort().
 */
export async function insertChangesPostgres(db: Executor, tenantId: string, unique: readonly LogEntry[], at: number): Promise<Inserted> {
  const positions = new Map<string, number>();
  const old = new Map<string, OldMember[]>();
  for (const chunk of chunks(unique, ROWS)) {
    const values = chunk.flatMap((entry) => [tenantId, entry.kind, entry.id, entry.op, (entry.op === 'put' ? entry.scopes : []).join(' ')]);
    const sql = `INSERT INTO sync_changes (tenant_id, kind, record_id, op, scopes, old_scopes, at)
      SELECT v.tenant_id, v.kind, v.record_id, v.op, v.scopes, COALESCE((SELECT string_agg(m.scope_key, ' ' ORDER BY m.scope_key COLLATE "C") ${MEMBERS_OF('v')}), ''), CAST(? AS bigint)
      FROM (VALUES ${chunk.map(() => '(CAST(? AS uuid), ?, ?, ?, ?)').join(', ')}) AS v(tenant_id, kind, record_id, op, scopes)
      RETURNING position, kind, record_id, (SELECT string_agg(m.scope_key || ' ' || m.hash, ' ') ${MEMBERS_OF('sync_changes')}) AS old`;
    for (const row of await run(db, 'postgres', sql, [at, ...values])) {
      const key = recordKey(String(row.kind), String(row.record_id));
      positions.set(key, Number(row.position));
      // "key hash key hash ...": keys never hold a space.
      const pairs = typeof row.old === 'string' && row.old !== '' ? row.old.split(' ') : [];
      const members: OldMember[] = [];
      for (let i = 0; i + 1 < pairs.length; i += 2) members.push({ key: pairs[i]!, hash: Number(pairs[i + 1]) });
      if (members.length > 0) old.set(key, members);
    }
  }
  return { positions, old };
}

/**
 * One statement for the memberships and the sums: the records' rows whose key stays are updated
 * to the new version, the others deleted, the new ones inserted, the deltas added. NOTE: not a
 * delete of every old row plus an insert, as on SQLite: sub-statements of one statement see the
 * same snapshot, so a re-inserted key would collide with its own not-yet-deleted row.
 */
export async function writeMembersPostgres(db: Executor, tenantId: string, withOld: readonly LogEntry[], members: readonly MemberRow[], sums: readonly SumDelta[]): Promise<void> {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  if (withOld.length > 0) {
    const stays = members.length > 0
      ? ` AND NOT EXISTS (SELECT 1 FROM (VALUES ${members.map(() => '(?, ?, ?)').join(', ')}) AS k(scope_key, kind, record_id) WHERE k.scope_key = m.scope_key AND k.kind = m.kind AND k.record_id = m.record_id)`
      : '';
    parts.push(`gone AS (DELETE FROM sync_members m USING (VALUES ${withOld.map(() => '(?, ?)').join(', ')}) AS r(kind, record_id)
      WHERE m.tenant_id = CAST(? AS uuid) AND m.kind = r.kind AND m.record_id = r.record_id${stays})`);
    bindings.push(...withOld.flatMap((e) => [e.kind, e.id]), tenantId, ...members.flatMap((m) => [m.key, m.kind, m.id]));
  }
  if (sums.length > 0) {
    parts.push(`sums AS (${SUMS_UPSERT(sums.length)})`);
    bindings.push(...sums.flatMap((d) => [tenantId, d.key, d.shard, d.n, d.sum]));
  }
  const main = members.length > 0
    ? `INSERT INTO sync_members (tenant_id, scope_key, kind, record_id, version, hash) VALUES ${members.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (tenant_id, scope_key, kind, record_id) DO UPDATE SET version = excluded.version, hash = excluded.hash`
    : 'SELECT 1';
  bindings.push(...members.flatMap((m) => [tenantId, m.key, m.kind, m.id, m.version, m.hash]));
  if (parts.length === 0 && members.length === 0) return;
  await run(db, 'postgres', `${parts.length > 0 ? `WITH ${parts.join(',\n')}\n` : ''}${main}`, bindings);
}
