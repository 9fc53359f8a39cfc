import type { Knex } from 'knex';

/** `user/me`'s `last_login` is the newest access token issued to the user: one index probe, not a scan. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_access_tokens', (t) => t.index(['user_id', 'created_at']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_access_tokens', (t) => t.dropIndex(['user_id', 'created_at']));
}
