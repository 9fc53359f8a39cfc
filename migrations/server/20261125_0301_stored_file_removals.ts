import type { Knex } from 'knex';

/**
 * Removing the bytes of deleted files (issue 24). The file store is content-addressed and
 * shared by every tenant (`sha256/ab/cd/<sha256>`), so bytes may go only when no row of any
 * tenant refers to them and no upload of the same bytes is on its way to a reference:
 *
 * - `stored_file_removals`: keys whose last reference may be gone (queued by the transaction
 *   that deletes a reference; queuing it again bumps `queued`). A sweeper claims one
 *   (`claimed_at`, `claim_id`), checks that nothing uses it, removes the bytes, then deletes
 *   the row unless it was queued again meanwhile. `not_before`: not removed before then (set
 *   by the scan below, for bytes written recently).
 * - `stored_file_uploads`: leases. An upload takes one before its bytes enter the store and
 *   gives it back once its transaction has committed (or failed); `renewed_at` is refreshed
 *   while it lasts, so only a crashed process's lease goes stale.
 * - `stored_file_scans`: which stores were searched once for bytes nothing refers to (those
 *   deleted before this migration, or copied by `admin migrate-files`), by the store's
 *   description hashed; `claimed_at` marks a scan under way, `finished_at` a scan done.
 *
 * The reference checks ask by sha256 across tenants: event_files and patrol_files get an index
 * on it (event_files' (tenant_id, sha256) cannot answer that).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stored_file_removals', (t) => {
    t.string('sha256', 64).primary();
    t.integer('queued').notNullable().defaultTo(1);
    t.bigInteger('not_before').nullable();
    t.bigInteger('claimed_at').nullable();
    t.uuid('claim_id').nullable();
  });
  await knex.schema.createTable('stored_file_uploads', (t) => {
    t.uuid('id').primary();
    t.string('sha256', 64).notNullable();
    t.bigInteger('renewed_at').notNullable();
    t.index(['sha256']);
    t.index(['renewed_at']);
  });
  await knex.schema.createTable('stored_file_scans', (t) => {
    t.string('store_id', 64).primary();
    t.text('description').notNullable();
    t.bigInteger('claimed_at').nullable();
    t.uuid('claim_id').nullable();
    t.bigInteger('finished_at').nullable();
  });
  await knex.schema.alterTable('event_files', (t) => t.index(['sha256'], 'event_files_sha256_idx'));
  await knex.schema.alterTable('patrol_files', (t) => t.index(['sha256'], 'patrol_files_sha256_idx'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('patrol_files', (t) => t.dropIndex(['sha256'], 'patrol_files_sha256_idx'));
  await knex.schema.alterTable('event_files', (t) => t.dropIndex(['sha256'], 'event_files_sha256_idx'));
  await knex.schema.dropTable('stored_file_scans');
  await knex.schema.dropTable('stored_file_uploads');
  await knex.schema.dropTable('stored_file_removals');
}
