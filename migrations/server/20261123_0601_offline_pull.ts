import type { Knex } from 'knex';

/**
 * Incremental pulls for field laptops (issue 16): `updated_since` on the patrol and subject lists
 * reads these (tenant_id, updated_at) indexes instead of scanning the tenant's rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('patrols', (t) => t.index(['tenant_id', 'updated_at'], 'patrols_tenant_updated_idx'));
  await knex.schema.alterTable('subjects', (t) => t.index(['tenant_id', 'updated_at'], 'subjects_tenant_updated_idx'));
  await knex.schema.alterTable('subject_status', (t) => t.index(['tenant_id', 'updated_at'], 'subject_status_tenant_updated_idx'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subject_status', (t) => t.dropIndex(['tenant_id', 'updated_at'], 'subject_status_tenant_updated_idx'));
  await knex.schema.alterTable('subjects', (t) => t.dropIndex(['tenant_id', 'updated_at'], 'subjects_tenant_updated_idx'));
  await knex.schema.alterTable('patrols', (t) => t.dropIndex(['tenant_id', 'updated_at'], 'patrols_tenant_updated_idx'));
}
