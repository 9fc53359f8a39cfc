import type { Knex } from 'knex';

/**
 * Patrols, their segments, notes, files and state history. A patrol row also carries what its
 * segments imply (its time window, when it actually started, its earliest scheduled start),
 * rewritten in the same transaction as any segment change, so that list filters are plain
 * indexed comparisons on both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('patrols', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.integer('serial_number').notNullable();
    t.string('title', 255).nullable();
    t.text('objective').nullable();
    t.integer('priority').notNullable().defaultTo(0);
    t.string('state', 10).notNullable().defaultTo('open');
    // Derived from the segments (see PatrolWindow in the domain).
    t.integer('segment_count').notNullable().defaultTo(0);
    t.bigInteger('window_start').nullable();
    t.bigInteger('window_end').nullable();
    t.boolean('open_ended').notNullable().defaultTo(false);
    t.bigInteger('actual_start').nullable();
    t.bigInteger('scheduled_start').nullable();
    /** When every segment has ended: the latest end; null while any segment has none. */
    t.bigInteger('all_ended_at').nullable();
    t.uuid('created_by_user_id').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'serial_number']);
    t.index(['tenant_id', 'state', 'all_ended_at']);
    t.index(['tenant_id', 'window_start']);
  });

  await knex.schema.createTable('patrol_segments', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('patrol_id').notNullable().references('id').inTable('patrols').onDelete('CASCADE');
    t.uuid('patrol_type_id').nullable().references('id').inTable('patrol_types').onDelete('SET NULL');
    t.string('leader_type', 30).nullable();
    t.uuid('leader_id').nullable();
    t.bigInteger('scheduled_start').nullable();
    t.bigInteger('scheduled_end').nullable();
    t.bigInteger('start_time').nullable();
    t.bigInteger('end_time').nullable();
    t.double('start_latitude').nullable();
    t.double('start_longitude').nullable();
    t.double('end_latitude').nullable();
    t.double('end_longitude').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['patrol_id']);
    t.index(['tenant_id', 'leader_id']);
  });

  await knex.schema.createTable('patrol_notes', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('patrol_id').notNullable().references('id').inTable('patrols').onDelete('CASCADE');
    t.text('text').notNullable();
    t.uuid('created_by_user_id').nullable();
    t.string('created_by_username', 30).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['patrol_id']);
  });

  await knex.schema.createTable('patrol_files', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('patrol_id').notNullable().references('id').inTable('patrols').onDelete('CASCADE');
    t.string('sha256', 64).notNullable();
    /** Where the file store keeps the bytes (content-addressed, relative to its root). */
    t.string('storage_path', 200).notNullable();
    t.string('filename', 255).notNullable();
    t.string('content_type', 100).notNullable();
    t.bigInteger('size').notNullable();
    t.text('comment').notNullable().defaultTo('');
    t.integer('ordernum').nullable();
    t.uuid('created_by_user_id').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['patrol_id']);
  });

  await knex.schema.createTable('patrol_updates', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('patrol_id').notNullable().references('id').inTable('patrols').onDelete('CASCADE');
    t.string('type', 40).notNullable();
    t.text('message').notNullable();
    t.uuid('user_id').nullable();
    t.string('username', 30).nullable();
    t.bigInteger('time').notNullable();
    t.index(['patrol_id', 'time']);
  });

  await knex.schema.createTable('segment_events', (t) => {
    t.uuid('segment_id').notNullable().references('id').inTable('patrol_segments').onDelete('CASCADE');
    t.uuid('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.primary(['segment_id', 'event_id']);
    t.index(['event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['segment_events', 'patrol_updates', 'patrol_files', 'patrol_notes', 'patrol_segments', 'patrols']) {
    await knex.schema.dropTableIfExists(table);
  }
}
