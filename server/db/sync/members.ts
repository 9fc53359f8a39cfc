/**
 * A record's current memberships (`sync_members`): the scope keys it is in and their checksum
 * terms. Read by the pre-commit hook twice per record at most (the fan-out's old keys and the
 * append's old rows), so the repository keeps what one transaction read (repository.ts).
 */
import type { RecordKind } from '../../../protocol/sync.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { chunks, list, run } from './statements.js';

export interface OldMember {
  key: string;
  hash: number;
}

/** Ids per statement (3 more variables: far below SQLite's limit). */
const IDS = 500;

/** `sync_members` for a lookup by record (see readMembers). */
export const membersTable = (dialect: Dialect) => (dialect === 'sqlite' ? 'sync_members INDEXED BY sync_members_record_idx' : 'sync_members');

/**
 * The memberships of `ids` (of one kind), by id; an id in no scope is missing. NOTE: on SQLite
 * the record index is named: without statistics the planner otherwise prefers the primary key
 * (tenant_id, scope_key, ...) as a covering index and scans every membership of the tenant.
 */
export async function readMembers(db: Executor, dialect: Dialect, tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, OldMember[]>> {
  const out = new Map<string, OldMember[]>();
  const table = membersTable(dialect);
  for (const chunk of chunks([...new Set(ids)], IDS)) {
    const sql = `SELECT record_id, scope_key, hash FROM ${table} WHERE tenant_id = ? AND kind = ? AND record_id IN (${list(chunk.length)})`;
    for (const row of await run(db, dialect, sql, [tenantId, kind, ...chunk])) {
      const id = String(row.record_id);
      const members = out.get(id);
      const member = { key: String(row.scope_key), hash: Number(row.hash) };
      if (members) members.push(member);
      else out.set(id, [member]);
    }
  }
  return out;
}
