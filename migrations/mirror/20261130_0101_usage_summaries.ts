import type { Knex } from 'knex';

/**
 * Usage summaries in the mirror (issue 28): per v2 event type `value`, the server's
 * `UsageSummary` (schema/compat/types.ts) as JSON, when it was fetched and its ETag if any, so
 * `fieldops lint --against mirror` compares with what stored events hold offline. Profile-local
 * like the rest of the mirror; refreshed by `fieldops sync` and by an online `lint --against`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_summaries', (t) => {
    t.string('event_type', 200).primary();
    t.text('summary').notNullable();
    t.string('fetched_at', 40).notNullable();
    t.string('etag', 200).nullable();
  });
  // When the server was last asked (answered or not offered): one row, `scope` 'all'.
  await knex.schema.createTable('usage_checks', (t) => {
    t.string('scope', 20).primary();
    t.string('checked_at', 40).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('usage_checks');
  await knex.schema.dropTableIfExists('usage_summaries');
}
