import type { Knex } from 'knex';

/**
 * Sensor intake (providers, sources, observations, subject status), the minimal events resource
 * that camera-trap reports create (CONTRACT §5b; issue 5 extends it), and the images those
 * reports claimed. Times are BIGINT epoch ms, JSON is TEXT (see 0001).
 */
export async function up(knex: Knex): Promise<void> {
  // A provider is an integration or device family, created on first sight of its key.
  await knex.schema.createTable('sensor_providers', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('provider_key', 100).notNullable();
    t.string('provider_type', 50).notNullable();
    // The latest heartbeat message, verbatim, and when it arrived (server time).
    t.text('last_heartbeat').nullable();
    t.bigInteger('last_heartbeat_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'provider_key']);
  });

  // A source is one device of a provider; subject_id is who it tracks now.
  await knex.schema.createTable('sensor_sources', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('provider_id').notNullable().references('id').inTable('sensor_providers').onDelete('CASCADE');
    t.string('manufacturer_id', 200).notNullable();
    t.string('source_type', 50).notNullable();
    t.string('model_name', 100).notNullable().defaultTo('');
    t.uuid('subject_id').nullable().references('id').inTable('subjects').onDelete('SET NULL');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['provider_id', 'manufacturer_id']);
    t.index(['tenant_id']);
  });

  // One row per fix. (source_id, recorded_at) is the idempotency key of every intake: a
  // retried or concurrent duplicate is skipped by INSERT ... ON CONFLICT DO NOTHING.
  await knex.schema.createTable('observations', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('source_id').notNullable().references('id').inTable('sensor_sources').onDelete('CASCADE');
    t.uuid('subject_id').nullable().references('id').inTable('subjects').onDelete('SET NULL');
    t.bigInteger('recorded_at').notNullable();
    t.double('latitude').notNullable();
    t.double('longitude').notNullable();
    t.text('additional').notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['source_id', 'recorded_at']);
    t.index(['tenant_id', 'recorded_at']);
    t.index(['subject_id', 'recorded_at']);
  });

  // The newest position and the newest radio state of each subject: never replaced by older ones.
  await knex.schema.createTable('subject_status', (t) => {
    t.uuid('subject_id').primary().references('id').inTable('subjects').onDelete('CASCADE');
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('source_id').nullable().references('id').inTable('sensor_sources').onDelete('SET NULL');
    t.bigInteger('recorded_at').notNullable();
    t.double('latitude').notNullable();
    t.double('longitude').notNullable();
    t.bigInteger('radio_recorded_at').nullable();
    t.text('radio_state').nullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['tenant_id']);
  });

  await knex.schema.createTable('events', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('event_type', 50).notNullable();
    t.string('title', 255).notNullable().defaultTo('');
    t.bigInteger('time').notNullable();
    t.double('latitude').nullable();
    t.double('longitude').nullable();
    t.integer('priority').notNullable().defaultTo(0);
    t.string('state', 10).notNullable().defaultTo('new');
    t.text('event_details').notNullable();
    t.uuid('created_by_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.uuid('created_by_client_id').nullable().references('id').inTable('oauth_clients').onDelete('SET NULL');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['tenant_id', 'time']);
    t.index(['tenant_id', 'event_type']);
  });

  // Files attached to events. `path` is relative to the file store's root (content-addressed).
  await knex.schema.createTable('event_files', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('sha256', 64).notNullable();
    t.string('path', 255).notNullable();
    t.bigInteger('size').notNullable();
    t.string('content_type', 100).notNullable();
    t.string('filename', 255).notNullable().defaultTo('');
    t.bigInteger('created_at').notNullable();
    t.index(['event_id']);
    t.index(['tenant_id', 'sha256']);
  });

  // Each image may be reported once per tenant: the same bytes again are a 409.
  await knex.schema.createTable('camera_trap_images', (t) => {
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('sha256', 64).notNullable();
    t.uuid('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.uuid('provider_id').notNullable().references('id').inTable('sensor_providers').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.primary(['tenant_id', 'sha256']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['camera_trap_images', 'event_files', 'events', 'subject_status', 'observations', 'sensor_sources', 'sensor_providers']) {
    await knex.schema.dropTableIfExists(table);
  }
}
