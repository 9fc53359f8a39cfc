import type { Knex } from 'knex';

/**
 * Tenants, users, permissions, OAuth clients and token state.
 * Timestamps are BIGINT epoch milliseconds (see server/db/time.ts); JSON values are TEXT so
 * both dialects store byte-identical documents.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.uuid('id').primary();
    t.string('name', 100).notNullable().unique();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('username', 30).notNullable().unique();
    t.string('password_hash', 255).notNullable();
    t.string('first_name', 30).notNullable().defaultTo('');
    t.string('last_name', 30).notNullable().defaultTo('');
    t.string('email', 254).notNullable().defaultTo('');
    t.string('phone', 15).notNullable().defaultTo('');
    t.boolean('is_superuser').notNullable().defaultTo(false);
    t.boolean('is_active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['tenant_id', 'username']);
  });
  // Usernames differing only in case would be indistinguishable to people: forbid them.
  await knex.raw('CREATE UNIQUE INDEX users_username_lower_unique ON users (lower(username))');

  await knex.schema.createTable('user_permissions', (t) => {
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('codename', 64).notNullable();
    t.primary(['user_id', 'codename']);
  });

  // The users a user may act as through the User-Profile header (CONTRACT §2).
  await knex.schema.createTable('user_profiles', (t) => {
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.uuid('profile_user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.primary(['user_id', 'profile_user_id']);
  });

  // A client with no tenant is service-wide (the public `fieldops-cli`): users of every tenant
  // log in through it, but it can never act as an application principal.
  await knex.schema.createTable('oauth_clients', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').nullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('client_id', 100).notNullable().unique();
    t.string('name', 255).notNullable().defaultTo('');
    t.string('secret_hash', 255).nullable();
    t.text('grant_types').notNullable();
    t.text('redirect_uris').notNullable();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('client_permissions', (t) => {
    t.uuid('client_pk').notNullable().references('id').inTable('oauth_clients').onDelete('CASCADE');
    t.string('codename', 64).notNullable();
    t.primary(['client_pk', 'codename']);
  });

  await knex.schema.createTable('oauth_authorization_codes', (t) => {
    t.uuid('id').primary();
    t.string('code_hash', 64).notNullable().unique();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('client_pk').notNullable().references('id').inTable('oauth_clients').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('redirect_uri').notNullable();
    t.string('code_challenge', 128).nullable();
    t.string('code_challenge_method', 10).nullable();
    t.string('scope', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
  });

  // A family is every refresh token descended from one grant; reuse of a rotated member
  // revokes the whole family and its access tokens.
  await knex.schema.createTable('oauth_refresh_tokens', (t) => {
    t.uuid('id').primary();
    t.string('token_hash', 64).notNullable().unique();
    t.uuid('family_id').notNullable().index();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('client_pk').notNullable().references('id').inTable('oauth_clients').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('scope', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('rotated_at').nullable();
    t.bigInteger('revoked_at').nullable();
  });

  await knex.schema.createTable('oauth_access_tokens', (t) => {
    t.uuid('id').primary();
    t.string('token_hash', 64).notNullable().unique();
    t.uuid('family_id').notNullable().index();
    t.uuid('refresh_token_id').nullable().references('id').inTable('oauth_refresh_tokens').onDelete('CASCADE');
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('client_pk').notNullable().references('id').inTable('oauth_clients').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('scope', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable().index();
    t.bigInteger('revoked_at').nullable();
  });

  // Failed password attempts per key (`user:<name>` or `addr:<ip>`), in fixed windows, shared
  // by every server process on the database.
  await knex.schema.createTable('auth_failures', (t) => {
    t.string('scope_key', 200).primary();
    t.bigInteger('window_start').notNullable();
    t.integer('failures').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'auth_failures',
    'oauth_access_tokens',
    'oauth_refresh_tokens',
    'oauth_authorization_codes',
    'client_permissions',
    'oauth_clients',
    'user_profiles',
    'user_permissions',
    'users',
    'tenants',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
