import type { Knex } from 'knex';

/**
 * `idempotency_keys.principal` holds `client:<OAuth client id>`, and a client id may be 100
 * characters: varchar(80) made a keyed write of such a client fail on PostgreSQL (the claim
 * insert, in the write's own transaction, rolled the write back). SQLite does not enforce
 * varchar lengths: nothing to do there.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('ALTER TABLE idempotency_keys ALTER COLUMN principal TYPE varchar(120)');
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('ALTER TABLE idempotency_keys ALTER COLUMN principal TYPE varchar(80)');
}
