/**
 * `sync_tenant_state`: per tenant, whether the one-time backfill of records written before the
 * change log existed is done (server/domain/sync/backfill.ts), and under whose claim it runs.
 * A tenant created after the log existed has nothing to backfill: it is `done` from its insert.
 */
import type { Knex } from 'knex';
import type { RecordKind } from '../../../protocol/sync.js';
import type { BackfillClaim, UnloggedStep } from '../../domain/sync/ports.js';
import type { Executor } from '../rows.js';
import { CATALOG_TABLES } from './facts.js';

/** The feed serves a tenant only once this is true (until then: 503 sync_preparing). One statement. */
export async function backfillDone(db: Executor, tenantId: string): Promise<boolean> {
  const row = await db('sync_tenant_state').where({ tenant_id: tenantId }).first('backfill');
  return row?.backfill === 'done';
}

/** For a tenant being inserted (its transaction): every record it will have is logged by its write. */
export async function insertDoneState(db: Executor, tenantId: string): Promise<void> {
  await db('sync_tenant_state').insert({ tenant_id: tenantId, backfill: 'done' }).onConflict('tenant_id').ignore();
}

export const RECORD_TABLES: Record<RecordKind, string> = { event: 'events', patrol: 'patrols', subject: 'subjects', ...CATALOG_TABLES };

/**
 * One keyset step of the backfill (SyncRepository.unlogged): the next `limit` records of `kind`
 * by id (events and patrols have an index on (tenant_id, id)), then which of them are logged.
 * NOTE: not one "records with no member" anti-join. PostgreSQL plans joins from statistics, and
 * right after an upgrade they say the kind has no members; that anti-join was then a nested loop
 * over every member of the kind, slower with every chunk (20,000 events: over 15 minutes; now 4 s).
 * test/server/sync/change-log-backfill-plan.test.ts counts the rows each statement examines.
 */
export async function unloggedStep(db: Executor, postgres: boolean, tenantId: string, kind: RecordKind, after: string | null, limit: number): Promise<UnloggedStep> {
  const candidates = db(RECORD_TABLES[kind]).where('tenant_id', tenantId).orderBy('id').limit(limit).select('id');
  if (after !== null) candidates.andWhere('id', '>', after);
  const ids = ((await candidates) as Array<{ id: string }>).map((row) => String(row.id));
  if (ids.length === 0) return { ids, last: after, done: true };
  const logged = await loggedAmong(db, postgres, tenantId, kind, ids);
  return { ids: ids.filter((id) => !logged.has(id)), last: ids.at(-1)!, done: ids.length < limit };
}

/**
 * Which of `ids` have a membership: one probe of sync_members' (tenant_id, kind, record_id)
 * index per id, so linear in `ids` whatever the statistics say.
 * NOTE: PostgreSQL, with statistics that say the kind has (almost) no members, runs an IN list
 * as a scan of all the kind's members filtered by the list, and may hash an EXISTS; a LATERAL
 * subquery with LIMIT is never flattened into a join, so it is probed once per id, by index.
 * record_id is text: PostgreSQL's uuid ids are compared as their text (lower case), as logged.
 */
async function loggedAmong(db: Executor, postgres: boolean, tenantId: string, kind: RecordKind, ids: readonly string[]): Promise<Set<string>> {
  let rows: Array<{ id: string }>;
  if (postgres) {
    const array = `{${ids.map((id) => `"${id.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
    const result = await db.raw(
      'SELECT u.id FROM unnest(?::text[]) AS u(id) CROSS JOIN LATERAL (SELECT 1 FROM sync_members m WHERE m.tenant_id = ? AND m.kind = ? AND m.record_id = u.id LIMIT 1) AS hit',
      [array, tenantId, kind],
    );
    rows = (result as { rows: Array<{ id: string }> }).rows;
  } else {
    rows = (await db('sync_members').where({ tenant_id: tenantId, kind }).whereIn('record_id', ids).distinct({ id: 'record_id' })) as Array<{ id: string }>;
  }
  return new Set(rows.map((row) => String(row.id)));
}

export async function addPendingBackfills(db: Executor): Promise<number> {
  const missing = (await db('tenants as t')
    .whereNotExists(db('sync_tenant_state as s').select(db.raw('1')).whereRaw('s.tenant_id = t.id'))
    .select('t.id')) as Array<{ id: string }>;
  for (const { id } of missing) await db('sync_tenant_state').insert({ tenant_id: id, backfill: 'pending' }).onConflict('tenant_id').ignore();
  return missing.length;
}

export async function claimBackfill(db: Executor, claimId: string, now: number, staleBefore: number): Promise<BackfillClaim | null> {
  const claimable = (q: Knex.QueryBuilder) =>
    q.where((w) => w.where('backfill', 'pending').orWhere((r) => r.where('backfill', 'running').andWhere((c) => c.whereNull('claimed_at').orWhere('claimed_at', '<', staleBefore))));
  const candidates = (await claimable(db('sync_tenant_state')).orderBy('tenant_id').limit(10).select('tenant_id')) as Array<{ tenant_id: string }>;
  for (const { tenant_id } of candidates) {
    // Conditional: among processes claiming the same tenant, one wins (the others see it running and fresh).
    const won = Number(await claimable(db('sync_tenant_state').where({ tenant_id })).update({ backfill: 'running', claimed_at: now, claim_id: claimId }));
    if (won !== 1) continue;
    const row = await db('sync_tenant_state').where({ tenant_id, claim_id: claimId }).first('backfill_kind', 'backfill_after');
    if (!row) continue;
    return { tenantId: String(tenant_id), claimId, kind: (row.backfill_kind as RecordKind | null) ?? null, after: (row.backfill_after as string | null) ?? null };
  }
  return null;
}

export async function advanceBackfill(db: Executor, claim: BackfillClaim, now: number): Promise<boolean> {
  const updated = await db('sync_tenant_state')
    .where({ tenant_id: claim.tenantId, claim_id: claim.claimId, backfill: 'running' })
    .update({ claimed_at: now, backfill_kind: claim.kind, backfill_after: claim.after });
  return Number(updated) === 1;
}

export async function finishBackfill(db: Executor, claim: BackfillClaim): Promise<boolean> {
  const updated = await db('sync_tenant_state')
    .where({ tenant_id: claim.tenantId, claim_id: claim.claimId, backfill: 'running' })
    .update({ backfill: 'done', claimed_at: null, claim_id: null, backfill_kind: null, backfill_after: null });
  return Number(updated) === 1;
}
