import type { Knex } from 'knex';

/**
 * The mirror's side of the sync feed (issue 25; docs/sync.md is the protocol).
 *
 * - `feed_state`: key/value state of the feed, written in the same transaction as the page it
 *   describes: `cursor`, `scopes` (what the user asked for, JSON), `keys` (the scope keys sent,
 *   JSON), `identity` (server and user the held data belong to), `checkpoint` (the last one the
 *   server sent, JSON), `server_has_feed`, `fallback_warned`.
 * - `record_scopes`: which requested scope keys each held record is in (as the server said).
 *   A held row with no entry here is not justified by any scope and is swept after a full
 *   catch-up (rows kept over a reset, rows of keys that left the window).
 *   Local counts and checksums (protocol/checksum.ts) are computed from these and the rows'
 *   versions when a checkpoint arrives, never kept apart from the rows (they could drift).
 * - `version` on every table the feed writes: the record's version on the server (null: not
 *   from the feed, e.g. a catalog read by the conditional GETs). `hash` on the pulled tables: the
 *   sha256 of `record`, so that a hand-edited row is caught by `fieldops verify`.
 * - `pulled_event_categories`: the event categories (a catalog kind the feed carries).
 */
const FEED_TABLES = ['pulled_patrols', 'pulled_events', 'pulled_subjects', 'patrol_types', 'event_types', 'choices'];
const PULLED = ['pulled_patrols', 'pulled_events', 'pulled_subjects'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('feed_state', (t) => {
    t.string('key', 40).primary();
    t.text('value').notNullable();
  });
  await knex.schema.createTable('record_scopes', (t) => {
    t.string('kind', 24).notNullable();
    t.string('id', 64).notNullable();
    t.string('scope_key', 120).notNullable();
    t.primary(['kind', 'id', 'scope_key']);
    t.index(['scope_key']);
  });
  for (const table of FEED_TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('version').nullable();
    });
  }
  for (const table of PULLED) {
    await knex.schema.alterTable(table, (t) => {
      t.string('hash', 64).nullable();
    });
  }
  await knex.schema.createTable('pulled_event_categories', (t) => {
    t.string('id', 64).primary();
    t.string('value', 100).notNullable();
    t.string('display', 255).notNullable().defaultTo('');
    t.double('ordernum').nullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.text('updated_at').nullable();
    t.text('record').notNullable();
    t.string('hash', 64).notNullable();
    t.bigInteger('version').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('pulled_event_categories');
  for (const table of PULLED) await knex.schema.alterTable(table, (t) => t.dropColumn('hash'));
  for (const table of FEED_TABLES) await knex.schema.alterTable(table, (t) => t.dropColumn('version'));
  for (const table of ['record_scopes', 'feed_state']) await knex.schema.dropTableIfExists(table);
}
