/**
 * The facts scope keys are computed from (server/domain/sync/ports.ts RecordFacts), read in
 * batches in the writing transaction. Every query is bound to the tenant.
 */
import type { RecordKind } from '../../../protocol/sync.js';
import type { CatalogFacts, EventFacts, PatrolFacts, RecordFacts, SubjectFacts } from '../../domain/sync/ports.js';
import { isUuid } from '../../domain/ids.js';
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';
import { fromDbMillis } from '../time.js';
import { membersTable, type OldMember } from './members.js';
import { chunks, list, run } from './statements.js';

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
  const values = map.get(key);
  if (values) {
    if (!values.includes(value)) values.push(value);
  } else map.set(key, [value]);
}

export { chunks };

/** Where a facts statement also hands the memberships of `ids` (members.ts). */
interface MemberSink {
  ids: string[];
  add(id: string, member: OldMember): void;
}

export interface FactsRead {
  facts: Map<string, RecordFacts>;
  /** With `withMembers`, for patrols and events: the memberships of each id read (none: []), by id as asked. */
  members: Map<string, OldMember[]> | null;
}

/**
 * Facts of those of `ids` that exist, keyed by the id as asked. NOTE: PostgreSQL keeps uuid
 * columns lowercase: results are matched back case-insensitively, and an id that is no uuid
 * (the column could not hold it) is simply missing rather than a driver error.
 */
export async function readFacts(db: Executor, dialect: Dialect, tenantId: string, kind: RecordKind, ids: readonly string[], withMembers = false): Promise<FactsRead> {
  const asked = new Map<string, string>();
  for (const id of ids) if (dialect === 'sqlite' || isUuid(id)) asked.set(dialect === 'postgres' ? id.toLowerCase() : id, id);
  const out = new Map<string, RecordFacts>();
  const members = withMembers && (kind === 'patrol' || kind === 'event') ? new Map<string, OldMember[]>() : null;
  for (const chunk of chunks([...asked], FACT_CHUNK)) {
    const sink: MemberSink | null = members && {
      ids: chunk.map(([, id]) => id),
      add: (id, member) => members.get(id)?.push(member),
    };
    for (const id of sink?.ids ?? []) members!.set(id, []);
    for (const facts of await readChunk(db, dialect, tenantId, kind, chunk.map(([key]) => key), sink)) {
      const id = asked.get(dialect === 'postgres' ? facts.id.toLowerCase() : facts.id);
      if (id !== undefined) out.set(id, { ...facts, id });
    }
  }
  return { facts: out, members };
}

function readChunk(db: Executor, dialect: Dialect, tenantId: string, kind: RecordKind, ids: string[], members: MemberSink | null): Promise<RecordFacts[]> {
  switch (kind) {
    case 'event':
      return eventFacts(db, dialect, tenantId, ids, members);
    case 'patrol':
      return patrolFacts(db, dialect, tenantId, ids, members);
    case 'subject':
      return subjectFacts(db, tenantId, ids);
    default:
      return catalogFacts(db, tenantId, kind, ids);
  }
}

/**
 * One statement: the events' rows ('e'), the groups of the subjects leading the segments they
 * are linked to ('g'), and when `members` is given their memberships ('m'). The category is the
 * type's: v2 when a v2 type of that value exists, else v1 (as the event list's category filter
 * resolves it). Ids and texts are cast to text so the branches unite on PostgreSQL; numbers are
 * left as they are (a cast would round SQLite's reals).
 */
async function eventFacts(db: Executor, dialect: Dialect, tenantId: string, ids: string[], members: MemberSink | null): Promise<EventFacts[]> {
  const inIds = list(ids.length);
  const branches = [
    `SELECT 'e' AS t, CAST(e.id AS TEXT) AS id, e.time AS a, e.latitude AS b, e.longitude AS c, CAST(e.created_by_user_id AS TEXT) AS d,
       CAST(CASE WHEN t2.id IS NOT NULL THEN t2.category ELSE t1.category END AS TEXT) AS f
     FROM events e
     LEFT JOIN event_types t2 ON t2.tenant_id = e.tenant_id AND t2.value = e.event_type
     LEFT JOIN event_types_v1 t1 ON t1.tenant_id = e.tenant_id AND t1.value = e.event_type
     WHERE e.tenant_id = ? AND e.id IN (${inIds})`,
    `SELECT 'g', CAST(se.event_id AS TEXT), NULL, NULL, NULL, CAST(m.group_id AS TEXT), NULL
     FROM patrol_segments s
     JOIN subject_group_members m ON m.subject_id = s.leader_id
     JOIN subject_groups g ON g.id = m.group_id AND g.tenant_id = s.tenant_id
     JOIN segment_events se ON se.tenant_id = s.tenant_id AND se.segment_id = s.id
     WHERE s.tenant_id = ? AND s.leader_type = 'observations.subject' AND se.event_id IN (${inIds})`,
  ];
  const bindings: unknown[] = [tenantId, ...ids, tenantId, ...ids];
  if (members) {
    branches.push(`SELECT 'm', record_id, hash, NULL, NULL, scope_key, NULL FROM ${membersTable(dialect)} WHERE tenant_id = ? AND kind = 'event' AND record_id IN (${list(members.ids.length)})`);
    bindings.push(tenantId, ...members.ids);
  }
  const teams = new Map<string, string[]>();
  const found: Row[] = [];
  for (const row of await run(db, dialect, branches.join('\nUNION ALL\n'), bindings)) {
    if (row.t === 'e') found.push(row);
    else if (row.t === 'g') push(teams, String(row.id), String(row.d));
    else members?.add(String(row.id), { key: String(row.d), hash: Number(row.a) });
  }
  return found.map((row) => ({
    kind: 'event',
    id: String(row.id),
    time: row.a === null || row.a === undefined ? null : iso(row.a),
    category: (row.f as string | null) || null,
    latitude: numberOrNull(row.b),
    longitude: numberOrNull(row.c),
    createdBy: (row.d as string | null) ?? null,
    teams: (teams.get(String(row.id)) ?? []).sort(),
  }));
}

/**
 * One statement: the patrols' rows ('p'), their user leaders ('u') and their subject leaders'
 * groups ('g'), and when `members` is given, the memberships of `members` ('m': the same
 * patrols' ids as marked; SyncRepository.memberKeys then needs no statement of its own). Every
 * column is text so the branches unite on PostgreSQL.
 */
async function patrolFacts(db: Executor, dialect: Dialect, tenantId: string, ids: string[], members: MemberSink | null): Promise<PatrolFacts[]> {
  const inIds = list(ids.length);
  const text = (column: string) => `CAST(${column} AS TEXT)`;
  const branches = [
    `SELECT 'p' AS t, ${text('id')} AS id, ${text('state')} AS a, ${text('COALESCE(window_start, created_at)')} AS b, ${text('created_by_user_id')} AS c
     FROM patrols WHERE tenant_id = ? AND id IN (${inIds})`,
    `SELECT 'u', ${text('patrol_id')}, ${text('leader_id')}, NULL, NULL
     FROM patrol_segments WHERE tenant_id = ? AND leader_type = 'accounts.user' AND leader_id IS NOT NULL AND patrol_id IN (${inIds})`,
    `SELECT 'g', ${text('s.patrol_id')}, ${text('m.group_id')}, NULL, NULL
     FROM patrol_segments s JOIN subject_group_members m ON m.subject_id = s.leader_id JOIN subject_groups g ON g.id = m.group_id AND g.tenant_id = s.tenant_id
     WHERE s.tenant_id = ? AND s.leader_type = 'observations.subject' AND s.patrol_id IN (${inIds})`,
  ];
  const bindings: unknown[] = [tenantId, ...ids, tenantId, ...ids, tenantId, ...ids];
  if (members) {
    branches.push(`SELECT 'm', record_id, scope_key, ${text('hash')}, NULL FROM ${membersTable(dialect)} WHERE tenant_id = ? AND kind = 'patrol' AND record_id IN (${list(members.ids.length)})`);
    bindings.push(tenantId, ...members.ids);
  }
  const rows = await run(db, dialect, branches.join('\nUNION ALL\n'), bindings);
  const users = new Map<string, string[]>();
  const teams = new Map<string, string[]>();
  const found: Row[] = [];
  for (const row of rows) {
    const id = String(row.id);
    if (row.t === 'p') found.push(row);
    else if (row.t === 'u') push(users, id, String(row.a));
    else if (row.t === 'g') push(teams, id, String(row.a));
    else members?.add(id, { key: String(row.a), hash: Number(row.b) });
  }
  return found.map((row) => {
    const id = String(row.id);
    const creator = (row.c as string | null) ?? null;
    const people = [...new Set([...(creator ? [creator] : []), ...(users.get(id) ?? [])])].sort();
    return { kind: 'patrol', id, state: String(row.a), startTime: iso(row.b), users: people, teams: (teams.get(id) ?? []).sort() };
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
