/**
 * The feed's safe horizon on PostgreSQL (docs/design/sync-feed-plan.md §2.2): every transaction
 * with an xid below the snapshot's xmin has ended, so the log rows with `txid < H` that a
 * snapshot sees never grow again; a row that commits later has `txid >= H` and sorts after
 * every row served. SQLite serialises writers: everything committed is safe (no horizon).
 *
 * NOTE: H must be taken in the same snapshot as the rows it bounds: in the rows' own statement
 * (HORIZON_SQL in a CTE) or in one REPEATABLE READ transaction. A reader never calls
 * pg_current_xact_id() (it would hold an xid, and its own xid would hold back xmin).
 */
import type { Dialect } from '../knex.js';
import type { Executor } from '../rows.js';

export const HORIZON_SQL = 'pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

/** H of the current snapshot (PostgreSQL); null on SQLite, where every committed row is safe. */
export async function feedHorizon(db: Executor, dialect: Dialect): Promise<number | null> {
  if (dialect === 'sqlite') return null;
  const result = (await db.raw(`SELECT ${HORIZON_SQL} AS h`)) as { rows: Array<{ h: string }> };
  return Number(result.rows[0]!.h);
}
