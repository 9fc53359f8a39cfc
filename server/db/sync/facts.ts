/**
 * The facts scope keys are computed from (server/domain/sync/ports.ts RecordFacts), read in
 * batches in the writing transaction. Every query is bound to the tenant.
 */
import type { Knex } from 'knex';
import type { RecordKind } from '../../../protocol/sync.js';
import type { CatalogFacts, EventFacts, PatrolFacts, RecordFacts, SubjectFacts } from '../../domain/sync/ports.js';
import { isUuid } from '../../domain/ids.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';

type Row = Record<string, unknown>;

/** Ids per statement: well under SQLite's variable limit, and plans stay cheap. */
export const FACT_CHUNK = 500;

const CATALOG_TABLES: Record<CatalogFacts['kind'], string> = {
  patrol_type: 'patrol_types',
  event_type: 'event_types',
  event_category: 'event_categories',
  choice: 'choices',
};

/** ISO 8601 UTC; null for a time no Date can hold. */
function iso(millis: unknown): string | null {
  const date = new Date(fromDbMillis(millis));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) {
    if (!list.includes(value)) list.push(value);
  } else map.set(key, [value]);
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Facts of those of `ids` that exist, keyed by the id as asked. NOTE: PostgreSQL keeps uuid
 * columns lowercase: results are matched back case-insensitively, and an id that is no uuid
 * (the column could not hold it) is simply missing rather than a driver error.
 */
export async function readFacts(db: Executor, dialect: Dialect, tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, RecordFacts>> {
  const asked = new Map<string, string>();
  for (const id of ids) if (dialect === 'sqlite' || isUuid(id)) asked.set(dialect === 'postgres' ? id.toLowerCase() : id, id);
  const out = new Map<string, RecordFacts>();
  for (const chunk of chunks([...asked.keys()], FACT_CHUNK)) {
    for (const facts of await readChunk(db, tenantId, kind, chunk)) {
      const id = asked.get(dialect === 'postgres' ? facts.id.toLowerCase() : facts.id);
      if (id !== undefined) out.set(id, { ...facts, id });
    }
  }
  return out;
}

function readChunk(db: Executor, tenantId: string, kind: RecordKind, ids: string[]): Promise<RecordFacts[]> {
  switch (kind) {
    case 'event':
      return eventFacts(db, tenantId, ids);
    case 'patrol':
      return patrolFacts(db, tenantId, ids);
    case 'subject':
      return subjectFacts(db, tenantId, ids);
    default:
      return catalogFacts(db, tenantId, kind, ids);
  }
}

/** Subject groups (of this tenant) of the subjects leading the given segments' rows. */
function leaderGroups(db: Executor, tenantId: string): Knex.QueryBuilder {
  return db('patrol_segments as s')
    .join('subject_group_members as m', 'm.subject_id', 's.leader_id')
    .join('subject_groups as g', function () {
      this.on('g.id', 'm.group_id').andOn('g.tenant_id', 's.tenant_id');
    })
    .where('s.tenant_id', tenantId)
    .andWhere('s.leader_type', 'observations.subject');
}

async function eventFacts(db: Executor, tenantId: string, ids: string[]): Promise<EventFacts[]> {
  // The category is the type's: v2 when a v2 type of that value exists, else v1 (as the
  // event list's category filter resolves it).
  const rows: Row[] = await db('events as e')
    .leftJoin('event_types as t2', function () {
      this.on('t2.tenant_id', 'e.tenant_id').andOn('t2.value', 'e.event_type');
    })
    .leftJoin('event_types_v1 as t1', function () {
      this.on('t1.tenant_id', 'e.tenant_id').andOn('t1.value', 'e.event_type');
    })
    .where('e.tenant_id', tenantId)
    .whereIn('e.id', ids)
    .select('e.id', 'e.time', 'e.latitude', 'e.longitude', 'e.created_by_user_id', db.raw('CASE WHEN t2.id IS NOT NULL THEN t2.category ELSE t1.category END AS category'));
  if (rows.length === 0) return [];
  const teams = new Map<string, string[]>();
  const linked: Row[] = await leaderGroups(db, tenantId)
    .join('segment_events as se', function () {
      this.on('se.tenant_id', 's.tenant_id').andOn('se.segment_id', 's.id');
    })
    .whereIn('se.event_id', rows.map((row) => row.id as string))
    .select('se.event_id', 'm.group_id');
  for (const row of linked) push(teams, String(row.event_id), String(row.group_id));
  return rows.map((row) => ({
    kind: 'event',
    id: String(row.id),
    time: row.time === null || row.time === undefined ? null : iso(row.time),
    category: (row.category as string | null) || null,
    latitude: numberOrNull(row.latitude),
    longitude: numberOrNull(row.longitude),
    createdBy: (row.created_by_user_id as string | null) ?? null,
    teams: (teams.get(String(row.id)) ?? []).sort(),
  }));
}

async function patrolFacts(db: Executor, tenantId: string, ids: string[]): Promise<PatrolFacts[]> {
  const rows: Row[] = await db('patrols').where({ tenant_id: tenantId }).whereIn('id', ids).select('id', 'state', 'window_start', 'created_at', 'created_by_user_id');
  if (rows.length === 0) return [];
  const found = rows.map((row) => row.id as string);
  const users = new Map<string, string[]>();
  const teams = new Map<string, string[]>();
  const leaders: Row[] = await db('patrol_segments').where({ tenant_id: tenantId, leader_type: 'accounts.user' }).whereIn('patrol_id', found).whereNotNull('leader_id').select('patrol_id', 'leader_id');
  for (const row of leaders) push(users, String(row.patrol_id), String(row.leader_id));
  for (const row of (await leaderGroups(db, tenantId).whereIn('s.patrol_id', found).select('s.patrol_id', 'm.group_id')) as Row[]) {
    push(teams, String(row.patrol_id), String(row.group_id));
  }
  return rows.map((row) => {
    const id = String(row.id);
    const creator = (row.created_by_user_id as string | null) ?? null;
    const people = [...new Set([...(creator ? [creator] : []), ...(users.get(id) ?? [])])].sort();
    return {
      kind: 'patrol',
      id,
      state: String(row.state),
      startTime: iso(row.window_start ?? row.created_at),
      users: people,
      teams: (teams.get(id) ?? []).sort(),
    };
  });
}

async function subjectFacts(db: Executor, tenantId: string, ids: string[]): Promise<SubjectFacts[]> {
  const rows: Row[] = await db('subjects').where({ tenant_id: tenantId }).whereIn('id', ids).select('id');
  if (rows.length === 0) return [];
  const groups = new Map<string, string[]>();
  const members: Row[] = await db('subject_group_members as m')
    .join('subject_groups as g', 'g.id', 'm.group_id')
    .where('g.tenant_id', tenantId)
    .whereIn('m.subject_id', rows.map((row) => row.id as string))
    .select('m.subject_id', 'm.group_id');
  for (const row of members) push(groups, String(row.subject_id), String(row.group_id));
  return rows.map((row) => ({ kind: 'subject', id: String(row.id), groups: (groups.get(String(row.id)) ?? []).sort() }));
}

async function catalogFacts(db: Executor, tenantId: string, kind: CatalogFacts['kind'], ids: string[]): Promise<CatalogFacts[]> {
  const rows: Row[] = await db(CATALOG_TABLES[kind]).where({ tenant_id: tenantId }).whereIn('id', ids).select('id');
  return rows.map((row) => ({ kind, id: String(row.id) }));
}

export { CATALOG_TABLES };
