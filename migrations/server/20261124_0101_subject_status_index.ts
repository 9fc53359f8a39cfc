import type { Knex } from 'knex';

/**
 * subject_status(tenant_id) is a prefix of subject_status(tenant_id, updated_at)
 * (20261123_0601_offline_pull), which answers every lookup it answered. Every status update moves
 * updated_at, so no update is a PostgreSQL HOT update and each wrote an entry into every index:
 * one index fewer is one entry fewer per moved subject, for every sensor batch.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subject_status', (t) => t.dropIndex(['tenant_id']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subject_status', (t) => t.index(['tenant_id']));
}
