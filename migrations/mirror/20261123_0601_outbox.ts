import type { Knex } from 'knex';

/**
 * The offline write path. `outbox`: every record made on the laptop, in recorded order (`seq`),
 * with the client-generated id it is created with on the server (so a push repeated after a
 * crash meets a 409, never a duplicate). `pulled_*`: what the field reads offline besides the
 * catalogs (open and recent patrols, recent events, subjects with their last positions), each
 * row the record as the server sent it plus its ETag; `pull_checkpoints` holds the
 * `updated_since` high-water mark per resource, written in the same transaction as the rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbox', (t) => {
    t.increments('seq').primary();
    t.string('id', 36).notNullable().unique(); // the outbox entry (a create's id is the record's id)
    t.string('kind', 40).notNullable(); // event.create | event.update | patrol.create | patrol.update | patrol.note | patrol.file | observation
    t.string('target', 36).nullable(); // the server record the entry creates or changes
    t.string('depends_on', 36).nullable(); // an earlier entry that must be sent first
    t.text('body').notNullable(); // JSON: what is sent
    t.text('base_etag').nullable(); // for updates: the version the change was based on (If-Match)
    t.string('batch_key', 200).nullable(); // entries with the same key may go in one request
    t.string('status', 20).notNullable().defaultTo('pending'); // pending | sent | rejected | conflict | dropped
    t.text('reason').nullable();
    t.text('theirs').nullable(); // the server's version, for a conflict
    t.text('source').nullable(); // FILE:row for imports
    t.text('recorded_at').notNullable();
    t.text('sent_at').nullable();
    t.text('etag').nullable(); // the ETag the server answered with
    t.index(['status', 'seq']);
  });

  for (const name of ['pulled_patrols', 'pulled_events', 'pulled_subjects']) {
    await knex.schema.createTable(name, (t) => {
      t.string('id', 36).primary();
      t.string('label', 255).notNullable().defaultTo(''); // serial number, event type, subject name
      t.text('sort_time').nullable(); // start time, event time, last position time
      t.string('state', 20).nullable();
      t.text('updated_at').nullable();
      t.text('etag').nullable();
      t.text('record').notNullable();
      t.index(['sort_time']);
    });
  }

  await knex.schema.createTable('pull_checkpoints', (t) => {
    t.string('resource', 40).primary();
    t.text('updated_since').nullable(); // the largest updated_at seen
    t.text('synced_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['pull_checkpoints', 'pulled_subjects', 'pulled_events', 'pulled_patrols', 'outbox']) await knex.schema.dropTableIfExists(table);
}
