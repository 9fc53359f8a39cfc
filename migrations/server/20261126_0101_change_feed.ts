import type { Knex } from 'knex';

/**
 * The tenant change log behind the sync feed (issue 25; docs/sync.md is the protocol).
 *
 * - `sync_changes`: one row per record a committed transaction touched, appended in that same
 *   transaction. `position` orders rows; on PostgreSQL `txid` is the writing transaction's
 *   top-level id (xid8 as bigint) and the feed serves rows in `(txid, position)` order only
 *   below the snapshot's xmin, so a transaction that commits after a read sorts after it. On
 *   SQLite writers are serialised (BEGIN IMMEDIATE), `txid` stays 0 and `position` alone is
 *   the commit order. AUTOINCREMENT so that a pruned last row never has its number reused.
 *   `scopes` / `old_scopes`: space-joined scope keys the record is in after / was in before
 *   this change (a `remove` is computed from them per laptop). `at`: the server clock, for
 *   retention only, never for ordering.
 * - `sync_members`: which records are in each scope now, at which version (the position of
 *   the record's latest change) with its checksum term.
 * - `sync_scope_sums`: count and additive checksum per scope, in 16 shards so that concurrent
 *   writers of one busy scope do not queue on one row.
 * - `sync_tenant_state`: the retention mark (cursors below it are answered 410) and the
 *   one-time backfill of records written before this log existed.
 */
export async function up(knex: Knex): Promise<void> {
  const postgres = knex.client.config.client === 'pg';
  await knex.schema.createTable('sync_changes', (t) => {
    t.bigIncrements('position').primary();
    if (postgres) t.bigInteger('txid').notNullable().defaultTo(knex.raw('(pg_current_xact_id()::text::bigint)'));
    else t.bigInteger('txid').notNullable().defaultTo(0);
    t.uuid('tenant_id').notNullable();
    t.string('kind', 24).notNullable();
    t.string('record_id', 64).notNullable();
    t.string('op', 8).notNullable();
    t.text('scopes').notNullable();
    t.text('old_scopes').notNullable();
    t.bigInteger('at').notNullable();
    t.index(['tenant_id', 'txid', 'position'], 'sync_changes_feed_idx');
    t.index(['tenant_id', 'kind', 'record_id'], 'sync_changes_record_idx');
  });
  await knex.schema.createTable('sync_members', (t) => {
    t.uuid('tenant_id').notNullable();
    t.string('scope_key', 120).notNullable();
    t.string('kind', 24).notNullable();
    t.string('record_id', 64).notNullable();
    t.bigInteger('version').notNullable();
    t.bigInteger('hash').notNullable();
    t.primary(['tenant_id', 'scope_key', 'kind', 'record_id']);
    t.index(['tenant_id', 'kind', 'record_id'], 'sync_members_record_idx');
  });
  await knex.schema.createTable('sync_scope_sums', (t) => {
    t.uuid('tenant_id').notNullable();
    t.string('scope_key', 120).notNullable();
    t.smallint('shard').notNullable();
    t.bigInteger('n').notNullable();
    t.bigInteger('sum').notNullable();
    t.primary(['tenant_id', 'scope_key', 'shard']);
  });
  await knex.schema.createTable('sync_tenant_state', (t) => {
    t.uuid('tenant_id').primary();
    t.bigInteger('pruned_txid').notNullable().defaultTo(0);
    t.bigInteger('pruned_position').notNullable().defaultTo(0);
    t.string('backfill', 12).notNullable().defaultTo('pending');
    t.string('backfill_kind', 24).nullable();
    t.string('backfill_after', 64).nullable();
    t.bigInteger('claimed_at').nullable();
    t.uuid('claim_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['sync_tenant_state', 'sync_scope_sums', 'sync_members', 'sync_changes']) await knex.schema.dropTable(table);
}
