/**
 * `sync_tenant_state`: per tenant, whether the one-time backfill of records written before the
 * change log existed is done (server/domain/sync/backfill.ts), and under whose claim it runs.
 * A tenant created after the log existed has nothing to backfill: it is `done` from its insert.
 */
import type { Knex } from 'knex';
import type { RecordKind } from '../../../protocol/sync.js';
import type { BackfillClaim } from '../../domain/sync/ports.js';
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

export async function unloggedIds(db: Executor, postgres: boolean, tenantId: string, kind: RecordKind, after: string | null, limit: number): Promise<string[]> {
  const query = db(`${RECORD_TABLES[kind]} as r`)
    .where('r.tenant_id', tenantId)
    .whereNotExists(
      db('sync_members as m')
        .select(db.raw('1'))
        .whereRaw('m.tenant_id = r.tenant_id')
        .andWhere('m.kind', kind)
        // NOTE: record_id is text; PostgreSQL's uuid ids need the cast to compare (and to use the index).
        .whereRaw(postgres ? 'm.record_id = CAST(r.id AS text)' : 'm.record_id = r.id'),
    )
    .orderBy('r.id')
    .limit(limit)
    .select('r.id');
  if (after !== null) query.andWhere('r.id', '>', after);
  return ((await query) as Array<{ id: string }>).map((row) => String(row.id));
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
