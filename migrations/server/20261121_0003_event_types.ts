import type { Knex } from 'knex';

/** Choices, event categories, v2 event types (a schema-carrying catalog) and v1 event types (text). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('choices', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('field', 40).notNullable();
    t.string('value', 100).notNullable();
    t.string('display', 100).notNullable().defaultTo('');
    t.double('ordernum').nullable();
    t.string('icon', 255).notNullable().defaultTo('');
    t.boolean('is_active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'field', 'value']);
  });

  await knex.schema.createTable('event_categories', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('value', 50).notNullable();
    t.string('display', 255).notNullable().defaultTo('');
    t.double('ordernum').nullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'value']);
  });

  await knex.schema.createTable('event_types', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('value', 50).notNullable();
    t.string('display', 255).notNullable().defaultTo('');
    t.string('category', 50).notNullable().defaultTo('');
    t.double('ordernum').nullable();
    t.string('icon', 255).notNullable().defaultTo('');
    t.integer('default_priority').notNullable().defaultTo(0);
    t.string('default_state', 10).notNullable().defaultTo('new');
    t.string('geometry_type', 10).notNullable().defaultTo('Point');
    t.boolean('is_collection').notNullable().defaultTo(false);
    t.boolean('is_active').notNullable().defaultTo(true);
    t.boolean('readonly').notNullable().defaultTo(false);
    t.text('schema').notNullable();
    t.integer('revision').notNullable().defaultTo(1);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'value']);
  });

  // v1 documents are template text, not JSON: stored verbatim until migrated.
  await knex.schema.createTable('event_types_v1', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('value', 50).notNullable();
    t.string('display', 255).notNullable().defaultTo('');
    t.string('category', 50).notNullable().defaultTo('');
    t.integer('default_priority').notNullable().defaultTo(0);
    t.boolean('is_active').notNullable().defaultTo(true);
    t.text('schema_text').notNullable();
    t.uuid('migrated_to').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'value']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['event_types_v1', 'event_types', 'event_categories', 'choices']) await knex.schema.dropTableIfExists(table);
}
