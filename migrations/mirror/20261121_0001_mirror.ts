import type { Knex } from 'knex';

/**
 * The local mirror of one server for one profile: the catalogs a field laptop reads offline,
 * plus one checkpoint per synced resource. Each item table keeps the record exactly as the
 * server sent it (`record`, JSON text) next to the columns the CLI sorts and filters on, and a
 * content hash so that a sync can tell changed rows without comparing JSON.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mirror_meta', (t) => {
    t.string('key', 40).primary();
    t.text('value').notNullable();
  });

  // Written in the same transaction as the data it describes (never ahead of or behind it).
  await knex.schema.createTable('checkpoints', (t) => {
    t.string('resource', 40).primary();
    t.string('status', 20).notNullable(); // ok | not_offered | forbidden
    t.text('etag').nullable();
    t.text('last_modified').nullable();
    t.text('synced_at').notNullable(); // last time the server confirmed or replaced the data
    t.text('changed_at').nullable(); // last time the data changed
    t.integer('item_count').notNullable().defaultTo(0);
    t.text('pages').notNullable().defaultTo('[]'); // validators of pages after the first (JSON)
  });

  const common = (t: Knex.CreateTableBuilder) => {
    t.string('id', 64).primary();
    t.string('value', 100).notNullable();
    t.string('display', 255).notNullable().defaultTo('');
    t.double('ordernum').nullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.text('updated_at').nullable();
    t.text('record').notNullable();
    t.string('hash', 64).notNullable();
  };

  await knex.schema.createTable('patrol_types', (t) => {
    common(t);
    t.integer('default_priority').notNullable().defaultTo(0);
    t.index(['value']);
  });

  await knex.schema.createTable('event_types', (t) => {
    common(t);
    t.string('category', 100).nullable();
    t.integer('default_priority').notNullable().defaultTo(0);
    t.index(['value']);
  });

  await knex.schema.createTable('choices', (t) => {
    common(t);
    t.string('field', 40).notNullable();
    t.index(['field', 'value']);
  });

  // Whole documents (the tracked-by schema): one row each.
  await knex.schema.createTable('documents', (t) => {
    t.string('name', 40).primary();
    t.text('body').notNullable();
    t.string('hash', 64).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['documents', 'choices', 'event_types', 'patrol_types', 'checkpoints', 'mirror_meta']) {
    await knex.schema.dropTableIfExists(table);
  }
}
