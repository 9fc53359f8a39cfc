import type { Knex } from 'knex';

/**
 * The response profile of an OAuth client (CONTRACT §11): `fieldops` or `earthranger`; null
 * means the server's default (FIELDOPS_API_PROFILE).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.string('api_profile', 20).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.dropColumn('api_profile');
  });
}
