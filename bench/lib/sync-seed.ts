/**
 * Bulk SQL seeding for the sync feed benchmark (bench/sync-feed.ts): event types, events, and a
 * team (a patrol-leader subject group, its subjects leading open patrols, events linked to their
 * segments). Written straight into a stopped server's database: the change log knows none of
 * it, so the server's one-time backfill (server/domain/sync/backfill.ts) logs it on the next
 * start; `pendBackfill` asks for that again after a later seeding.
 */
import { randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { bulkSchema } from '../../test/helpers/bulk-catalog.js';

const DAY = 86_400_000;
const BATCH = 500;

export function seedKnex(location: string): Knex {
  if (/^postgres/i.test(location)) return knexFactory({ client: 'pg', connection: location, pool: { min: 0, max: 4 } });
  return knexFactory({ client: 'better-sqlite3', connection: { filename: location }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
}

export interface SeedContext {
  tenantId: string;
  adminId: string;
}

export async function seedContext(knex: Knex): Promise<SeedContext> {
  const tenant = await knex('tenants').where({ name: 'default' }).first();
  const admin = await knex('users').where({ tenant_id: tenant.id, username: 'admin' }).first();
  return { tenantId: String(tenant.id), adminId: String(admin.id) };
}

/** `count` event types (value `bench-00000`…) with ~1.3 KB schemas, in one category `bench`. */
export async function seedEventTypes(knex: Knex, ctx: SeedContext, count: number): Promise<string[]> {
  const now = Date.now();
  await knex('event_categories').insert({ id: randomUUID(), tenant_id: ctx.tenantId, value: 'bench', display: 'Bench', ordernum: 1, is_active: true, created_at: now, updated_at: now });
  const values = Array.from({ length: count }, (_, i) => `bench-${String(i).padStart(5, '0')}`);
  const rows = values.map((value, i) => ({
    id: randomUUID(), tenant_id: ctx.tenantId, value, display: `Bench event type ${i}`, category: 'bench', ordernum: i + 1, icon: '',
    default_priority: [0, 100, 200, 300][i % 4], default_state: 'new', geometry_type: 'Point', is_collection: false, is_active: true, readonly: false,
    schema: bulkSchema(i), revision: 1, created_at: now, updated_at: now,
  }));
  await knex.transaction(async (trx) => {
    await trx.batchInsert('event_types', rows, 200);
    await bump(trx, ctx.tenantId, 'eventtypes', now);
  });
  return values;
}

export interface EventSeed {
  count: number;
  types: string[];
  /** Event times are spread over [now - newestDaysAgo - spanDays, now - newestDaysAgo]. */
  newestDaysAgo: number;
  spanDays: number;
}

/** Inserts events with serial numbers after the tenant's last; answers their ids. */
export async function seedEvents(knex: Knex, ctx: SeedContext, seed: EventSeed): Promise<string[]> {
  const now = Date.now();
  const last = Number((await knex('event_serials').where({ tenant_id: ctx.tenantId }).first())?.last ?? 0);
  const ids: string[] = [];
  await knex.transaction(async (trx) => {
    for (let start = 0; start < seed.count; start += BATCH) {
      const rows = [];
      for (let i = start; i < Math.min(seed.count, start + BATCH); i++) {
        const id = randomUUID();
        ids.push(id);
        const time = now - seed.newestDaysAgo * DAY - Math.floor(((i * 7919) % seed.count) / seed.count * seed.spanDays * DAY) - 60_000;
        rows.push({
          id, tenant_id: ctx.tenantId, event_type: seed.types[i % seed.types.length]!, title: `Bench event ${last + i + 1}`, time,
          latitude: -1.5 + ((i * 37) % 100) / 100, longitude: 36.5 + ((i * 53) % 100) / 100, priority: [0, 100, 200, 300][i % 4], state: 'new',
          event_details: JSON.stringify({ notes: `Seen near marker ${i % 400}`, count: i % 30 }), created_by_user_id: ctx.adminId, created_by_client_id: null,
          created_at: time, updated_at: time, serial_number: last + i + 1, revision: 1,
        });
      }
      await trx('events').insert(rows);
    }
    await trx('event_serials').insert({ tenant_id: ctx.tenantId, last: last + seed.count }).onConflict('tenant_id').merge({ last: last + seed.count });
  });
  return ids;
}

export interface TeamSeed {
  groupId: string;
  subjects: number;
  patrols: number;
  linkedEvents: number;
}

/**
 * A patrol-leader group of `size` subjects, each leading the one segment of an open patrol
 * started an hour ago; `linked` of `events` are linked to those segments (ev:team of the group).
 */
export async function seedTeam(knex: Knex, ctx: SeedContext, size: number, events: string[], linked: number): Promise<TeamSeed> {
  const now = Date.now();
  const groupId = randomUUID();
  const subjects = Array.from({ length: size }, (_, i) => ({
    id: randomUUID(), tenant_id: ctx.tenantId, name: `Ranger ${String(i).padStart(2, '0')}`, subject_type: 'person', subject_subtype: 'ranger',
    is_active: true, additional: '{}', created_at: now, updated_at: now,
  }));
  const lastPatrol = Number((await knex('patrol_serials').where({ tenant_id: ctx.tenantId }).first())?.last_serial ?? 0);
  const patrols = subjects.map((_, i) => ({
    id: randomUUID(), tenant_id: ctx.tenantId, serial_number: lastPatrol + i + 1, title: `Team patrol ${i}`, objective: null, priority: 0, state: 'open',
    segment_count: 1, window_start: now - 3_600_000, window_end: null, open_ended: true, actual_start: now - 3_600_000, scheduled_start: null, all_ended_at: null,
    created_by_user_id: ctx.adminId, created_at: now, updated_at: now,
  }));
  const segments = patrols.map((patrol, i) => ({
    id: randomUUID(), tenant_id: ctx.tenantId, patrol_id: patrol.id, patrol_type_id: null, leader_type: 'observations.subject', leader_id: subjects[i]!.id,
    scheduled_start: null, scheduled_end: null, start_time: now - 3_600_000, end_time: null, start_latitude: null, start_longitude: null, end_latitude: null, end_longitude: null,
    created_at: now, updated_at: now,
  }));
  const links = events.slice(0, linked).map((eventId, i) => ({ tenant_id: ctx.tenantId, segment_id: segments[i % segments.length]!.id, event_id: eventId }));
  await knex.transaction(async (trx) => {
    await trx('subjects').insert(subjects);
    await trx('subject_groups').insert({ id: groupId, tenant_id: ctx.tenantId, name: 'Bench team', is_patrol_leader_group: true, created_at: now });
    await trx('subject_group_members').insert(subjects.map((s) => ({ group_id: groupId, subject_id: s.id })));
    await trx.batchInsert('patrols', patrols, 100);
    await trx.batchInsert('patrol_segments', segments, 100);
    await trx.batchInsert('segment_events', links, 200);
    await trx('patrol_serials').insert({ tenant_id: ctx.tenantId, last_serial: lastPatrol + size }).onConflict('tenant_id').merge({ last_serial: lastPatrol + size });
  });
  return { groupId, subjects: size, patrols: size, linkedEvents: links.length };
}

/**
 * Marks the tenant's backfill as pending again: the next server start logs unlogged records.
 * NOTE: on PostgreSQL the bulk-filled tables are analyzed first, as a database in use would be:
 * without statistics the backfill's anti-join over sync_members is planned as a nested loop
 * (minutes per chunk of 500 at 20,000 events).
 */
export async function pendBackfill(knex: Knex, ctx: SeedContext): Promise<void> {
  if (knex.client.config.client === 'pg') await knex.raw('ANALYZE');
  await knex('sync_tenant_state').where({ tenant_id: ctx.tenantId }).update({ backfill: 'pending', backfill_kind: null, backfill_after: null, claimed_at: null, claim_id: null });
}

/** Records of the given scope keys on the server now (distinct kind and id), from sync_members. */
export async function serverScopeCount(knex: Knex, ctx: SeedContext, keys: readonly string[]): Promise<number> {
  const row = await knex.from(knex('sync_members').where({ tenant_id: ctx.tenantId }).whereIn('scope_key', [...keys]).distinct('kind', 'record_id').as('d')).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * PostgreSQL: VACUUM ANALYZE after a bulk load, as an operator would, so that an autovacuum
 * ANALYZE (which takes a transaction id) does not hold the feed's horizon in the middle of a
 * measurement (the pages would say `settling` and the client would wait, by design).
 */
export async function settleDatabase(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') await knex.raw('VACUUM ANALYZE');
}

/**
 * PostgreSQL, while the backfill runs: ANALYZE sync_members every 10 s (autovacuum would, later).
 * NOTE: the backfill's "records in no scope" anti-join (server/db/sync/tenant-state.ts
 * unloggedIds) is planned as a nested loop over a materialised scan of the kind's members while
 * the statistics say the kind has none; it then slows with every chunk (quadratic).
 */
export function analyzeWhileBackfilling(knex: Knex): () => Promise<void> {
  let last = Date.now();
  return async () => {
    if (knex.client.config.client !== 'pg' || Date.now() - last < 10_000) return;
    last = Date.now();
    await knex.raw('ANALYZE sync_members');
  };
}

/** Rows in the tenant's change log. */
export async function logRows(knex: Knex, ctx: SeedContext): Promise<number> {
  const row = await knex('sync_changes').where({ tenant_id: ctx.tenantId }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

async function bump(trx: Knex.Transaction, tenantId: string, catalog: string, at: number): Promise<void> {
  await trx('catalog_versions')
    .insert({ tenant_id: tenantId, catalog, version: 1, last_modified: at })
    .onConflict(['tenant_id', 'catalog'])
    .merge({ version: trx.raw('catalog_versions.version + 1'), last_modified: at });
}
