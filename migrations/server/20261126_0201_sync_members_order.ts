import type { Knex } from 'knex';

/**
 * The feed's snapshot pages walk a tenant's memberships in (kind, record_id) byte order
 * (server/db/sync/feed-read.ts snapshotPage). On PostgreSQL that order is `COLLATE "C"`, which
 * no index of 20261126_0101_change_feed serves (sync_members_record_idx is in the database's
 * collation): every page sorted all the tenant's members after its keyset (~25 ms a page of
 * 1,000 at 22,000 records). This index is read in order from the keyset and stops at the
 * page's end; `scope_key` in it lets the walk test a member's key without reading the row.
 * Only key columns are indexed, so a member whose version moves is still a HOT update.
 *
 * NOTE: partial, on a predicate that is always true (`kind COLLATE "C" >= ''`) and that only
 * the walk states, so that the planner considers the index for no other statement. Without
 * statistics (an upgrade's backfill fills sync_members after it was analyzed empty) every
 * index led by tenant_id costs the same for the change log's probes by (tenant, kind,
 * record_id), and the planner took this one, which serves them by tenant only: every member
 * of the tenant per probe (test/server/sync/change-log-backfill-plan.test.ts).
 *
 * SQLite compares text bytewise (BINARY) already, so sync_members_record_idx serves the walk
 * there (EXPLAIN QUERY PLAN: SEARCH … USING INDEX sync_members_record_idx): nothing to add.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(`CREATE INDEX sync_members_order_idx ON sync_members (tenant_id, kind COLLATE "C", record_id COLLATE "C", scope_key) WHERE kind COLLATE "C" >= ''`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('DROP INDEX sync_members_order_idx');
}
