import type { Knex } from 'knex';

/**
 * Patrol types, the per-tenant catalog versions that make validators cheap and identical across
 * server processes, revision history shared by the catalogs, and the minimal subject model
 * behind the tracked-by schema.
 */
export async function up(knex: Knex): Promise<void> {
  // One row per (tenant, catalog): bumped in the same transaction as every change to that
  // catalog, including changes that move no updated_at (rank renumbering, deletions).
  await knex.schema.createTable('catalog_versions', (t) => {
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('catalog', 40).notNullable();
    t.bigInteger('version').notNullable();
    t.bigInteger('last_modified').notNullable();
    t.primary(['tenant_id', 'catalog']);
  });

  await knex.schema.createTable('patrol_types', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('value', 50).notNullable();
    t.string('display', 255).notNullable().defaultTo('');
    t.double('ordernum').nullable();
    t.string('icon', 255).notNullable().defaultTo('');
    t.integer('default_priority').notNullable().defaultTo(0);
    t.boolean('is_active').notNullable().defaultTo(true);
    t.text('schema').notNullable();
    // Bumped with every change to the row, renumbering included: the detail ETag's source.
    t.integer('revision').notNullable().defaultTo(1);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'value']);
  });

  await knex.schema.createTable('catalog_revisions', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('catalog', 40).notNullable();
    t.uuid('item_id').notNullable();
    t.integer('sequence').notNullable();
    t.string('action', 20).notNullable();
    t.bigInteger('time').notNullable();
    t.uuid('user_id').nullable();
    t.string('username', 30).nullable();
    t.text('updated_fields').nullable();
    t.text('snapshot').nullable();
    t.unique(['catalog', 'item_id', 'sequence']);
    t.index(['tenant_id', 'catalog', 'item_id']);
  });

  await knex.schema.createTable('subjects', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('subject_type', 50).notNullable().defaultTo('person');
    t.string('subject_subtype', 50).notNullable().defaultTo('ranger');
    t.boolean('is_active').notNullable().defaultTo(true);
    t.text('additional').notNullable().defaultTo('{}');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['tenant_id', 'name']);
  });

  await knex.schema.createTable('subject_groups', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    // Members of such groups are who can lead a patrol segment (the tracked-by schema).
    t.boolean('is_patrol_leader_group').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.unique(['tenant_id', 'name']);
  });

  await knex.schema.createTable('subject_group_members', (t) => {
    t.uuid('group_id').notNullable().references('id').inTable('subject_groups').onDelete('CASCADE');
    t.uuid('subject_id').notNullable().references('id').inTable('subjects').onDelete('CASCADE');
    t.primary(['group_id', 'subject_id']);
    t.index(['subject_id']);
  });

  // Which subject groups a user may view (superusers view all).
  await knex.schema.createTable('user_subject_groups', (t) => {
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.uuid('group_id').notNullable().references('id').inTable('subject_groups').onDelete('CASCADE');
    t.primary(['user_id', 'group_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['user_subject_groups', 'subject_group_members', 'subject_groups', 'subjects', 'catalog_revisions', 'patrol_types', 'catalog_versions']) {
    await knex.schema.dropTableIfExists(table);
  }
}
