/**
 * Shared set-up of the change-log write-side tests: a migrated database, a store whose unit of
 * work runs the real hook, one tenant with a user, and rows written straight into the tables
 * (as records written before the log existed are).
 */
import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { recordTerm, shardOf } from '../../../protocol/checksum.js';
import type { Database } from '../../../server/db/knex.js';
import { migrateToLatest } from '../../../server/db/migrate.js';
import { createStore } from '../../../server/db/store.js';
import type { Store } from '../../../server/domain/ports.js';
import { recordChanges } from '../../../server/domain/sync/record-changes.js';
import { openTestDatabase } from '../../helpers/database.js';

export interface LogFixture {
  database: Database;
  store: Store;
  tenantId: string;
  userId: string;
}

export async function openLogFixture(t: Test): Promise<LogFixture | null> {
  const database = await openTestDatabase(t);
  if (!database) return null;
  await migrateToLatest(database.knex);
  const store = createStore(database, undefined, { beforeCommit: (repos, changes) => recordChanges(repos, changes, 1_000) });
  const tenantId = randomUUID();
  await store.repos.tenants.insert({ id: tenantId, name: `t-${tenantId.slice(0, 8)}`, createdAt: 1 });
  const userId = await insertUser(database, tenantId);
  return { database, store, tenantId, userId };
}

export async function insertUser(database: Database, tenantId: string): Promise<string> {
  const id = randomUUID();
  await database.knex('users').insert({ id, tenant_id: tenantId, username: `u${id.slice(0, 12)}`, password_hash: 'x', created_at: 1, updated_at: 1 });
  return id;
}

export async function insertEvent(database: Database, tenantId: string, fields: { type?: string; time?: number; lat?: number | null; lon?: number | null; by?: string | null } = {}): Promise<string> {
  const id = randomUUID();
  await database.knex('events').insert({
    id, tenant_id: tenantId, event_type: fields.type ?? 'none', time: fields.time ?? Date.UTC(2026, 10, 20, 10), latitude: fields.lat ?? null, longitude: fields.lon ?? null,
    event_details: '{}', created_by_user_id: fields.by ?? null, created_at: 1, updated_at: 1, serial_number: null, revision: 1,
  });
  return id;
}

export async function insertGroup(database: Database, tenantId: string, subjectIds: readonly string[]): Promise<string> {
  const id = randomUUID();
  await database.knex('subject_groups').insert({ id, tenant_id: tenantId, name: `g-${id.slice(0, 8)}`, is_patrol_leader_group: true, created_at: 1 });
  for (const subjectId of subjectIds) await database.knex('subject_group_members').insert({ group_id: id, subject_id: subjectId });
  return id;
}

export async function insertSubject(database: Database, tenantId: string): Promise<string> {
  const id = randomUUID();
  await database.knex('subjects').insert({ id, tenant_id: tenantId, name: `s-${id.slice(0, 8)}`, created_at: 1, updated_at: 1 });
  return id;
}

let serial = 0;
export async function insertPatrol(database: Database, tenantId: string, fields: { state?: string; by?: string | null; windowStart?: number | null; segments?: Array<{ leaderType: string; leaderId: string }> } = {}): Promise<{ id: string; segmentIds: string[] }> {
  const id = randomUUID();
  await database.knex('patrols').insert({
    id, tenant_id: tenantId, serial_number: ++serial, state: fields.state ?? 'open', window_start: fields.windowStart ?? null, created_by_user_id: fields.by ?? null, created_at: Date.UTC(2026, 10, 1), updated_at: 1,
  });
  const segmentIds: string[] = [];
  for (const segment of fields.segments ?? []) {
    const segmentId = randomUUID();
    await database.knex('patrol_segments').insert({ id: segmentId, tenant_id: tenantId, patrol_id: id, leader_type: segment.leaderType, leader_id: segment.leaderId, created_at: 1, updated_at: 1 });
    segmentIds.push(segmentId);
  }
  return { id, segmentIds };
}

/** Marks records in one unit of work, as a repository write would; the hook appends. */
export function markInTransaction(store: Store, tenantId: string, kind: Parameters<Store['repos']['sync']['markChanged']>[1], ids: readonly string[]): Promise<void> {
  return store.transaction((repos) => repos.sync.markChanged(tenantId, kind, ids));
}

/** The member keys of one record, sorted. */
export async function keysOf(database: Database, tenantId: string, kind: string, id: string): Promise<string[]> {
  const rows = (await database.knex('sync_members').where({ tenant_id: tenantId, kind, record_id: id }).select('scope_key')) as Array<{ scope_key: string }>;
  return rows.map((row) => row.scope_key).sort();
}

/**
 * The sums recounted from sync_members (per key and shard, zero rows left out), and the stored
 * sums; they must be equal. Also checks every member's hash against its version.
 */
export async function recount(database: Database, tenantId: string): Promise<{ counted: string[]; stored: string[]; badHashes: number }> {
  const sums = new Map<string, { n: number; sum: number }>();
  let badHashes = 0;
  for (const row of (await database.knex('sync_members').where({ tenant_id: tenantId })) as Array<Record<string, unknown>>) {
    const kind = String(row.kind);
    const id = String(row.record_id);
    const hash = Number(row.hash);
    if (hash !== recordTerm(kind, id, Number(row.version))) badHashes++;
    const key = `${row.scope_key}/${shardOf(id)}`;
    const s = sums.get(key) ?? { n: 0, sum: 0 };
    s.n += 1;
    s.sum = (s.sum + hash) % 4294967296;
    sums.set(key, s);
  }
  const counted = [...sums].map(([key, s]) => `${key} n=${s.n} sum=${s.sum}`).sort();
  const stored = ((await database.knex('sync_scope_sums').where({ tenant_id: tenantId })) as Array<Record<string, unknown>>)
    .filter((row) => Number(row.n) !== 0 || Number(row.sum) !== 0)
    .map((row) => `${row.scope_key}/${Number(row.shard)} n=${Number(row.n)} sum=${Number(row.sum)}`)
    .sort();
  return { counted, stored, badHashes };
}
