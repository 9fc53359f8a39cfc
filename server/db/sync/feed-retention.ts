/**
 * The retention's statements (server/domain/sync/retention.ts). One batch is one transaction:
 * delete the oldest rows written before the cutoff, then raise each tenant's pruned mark to the
 * last (txid, position) deleted, so that no cursor that could have missed a deleted row is
 * served again (410).
 *
 * PostgreSQL: `pg_advisory_xact_lock` lets one process prune at a time, and only rows below the
 * horizon (txid < H) go: rows of transactions that may still have company above H stay until
 * every reader can have passed them. SQLite: the transaction begins IMMEDIATE (one writer).
 */
import type { Knex } from 'knex';
import type { SyncRetentionStore } from '../../domain/sync/feed-ports.js';
import type { Dialect } from '../knex.js';
import { HORIZON_SQL } from './horizon.js';
import { fnv1a32 } from '../../../protocol/checksum.js';

type Row = Record<string, unknown>;
const LOCK_KEY = fnv1a32('fieldops sync retention');

export class KnexSyncRetentionStore implements SyncRetentionStore {
  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
  ) {}

  prune(before: number, batch: number): Promise<number> {
    return this.knex.transaction(async (trx) => {
      let deleted: Row[];
      if (this.dialect === 'postgres') {
        await trx.raw('SELECT pg_advisory_xact_lock(?)', [LOCK_KEY]);
        const { rows } = (await trx.raw(`SELECT ${HORIZON_SQL} AS h`)) as { rows: Row[] };
        const horizon = Number(rows[0]!.h);
        deleted = ((await trx.raw(
          'DELETE FROM sync_changes WHERE position IN (SELECT position FROM sync_changes WHERE at < ? AND txid < ? ORDER BY position LIMIT ?) RETURNING tenant_id, txid, position',
          [before, horizon, batch],
        )) as { rows: Row[] }).rows;
      } else {
        deleted = (await trx.raw('DELETE FROM sync_changes WHERE position IN (SELECT position FROM sync_changes WHERE at < ? ORDER BY position LIMIT ?) RETURNING tenant_id, txid, position', [before, batch])) as Row[];
      }
      const marks = new Map<string, [number, number]>();
      for (const row of deleted) {
        const tenant = String(row.tenant_id);
        const mark: [number, number] = [Number(row.txid), Number(row.position)];
        const known = marks.get(tenant);
        if (!known || mark[0] > known[0] || (mark[0] === known[0] && mark[1] > known[1])) marks.set(tenant, mark);
      }
      for (const [tenantId, [txid, position]] of marks) await raiseMark(trx, tenantId, txid, position);
      return deleted.length;
    });
  }
}

/** Raises (never lowers) the tenant's pruned mark; a tenant without state gets a row (backfill pending). */
async function raiseMark(trx: Knex.Transaction, tenantId: string, txid: number, position: number): Promise<void> {
  const updated = await trx('sync_tenant_state')
    .where({ tenant_id: tenantId })
    .andWhere((q) => q.where('pruned_txid', '<', txid).orWhere((r) => r.where('pruned_txid', txid).andWhere('pruned_position', '<', position)))
    .update({ pruned_txid: txid, pruned_position: position });
  if (Number(updated) === 0) await trx('sync_tenant_state').insert({ tenant_id: tenantId, pruned_txid: txid, pruned_position: position }).onConflict('tenant_id').ignore();
}
