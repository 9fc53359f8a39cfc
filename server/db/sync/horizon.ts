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

/**
 * How long the feed's horizon has been held (PostgreSQL): the age in seconds of the oldest
 * transaction that holds an xid, over the whole cluster (xids are cluster-wide, so a session on
 * another database holds the horizon too). 0 when none is open, and on SQLite. Other roles'
 * sessions are visible only to a superuser or a member of `pg_read_all_stats`; otherwise the
 * age covers this role's sessions.
 */
export async function horizonAgeSeconds(db: Executor, dialect: Dialect): Promise<number> {
  if (dialect === 'sqlite') return 0;
  const result = (await db.raw(
    'SELECT coalesce(extract(epoch FROM clock_timestamp() - min(xact_start)), 0)::float8 AS age FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()',
  )) as { rows: Array<{ age: number | string }> };
  return Math.max(0, Number(result.rows[0]?.age ?? 0));
}
