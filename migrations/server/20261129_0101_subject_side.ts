import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The subject side of the original (issue 27): source assignments over time, the fields of
 * subjects, sources and providers that its clients read and write, event relationships
 * (incidents), messages, and spatial feature sets. Times are BIGINT epoch ms, JSON is TEXT.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subjects', (t) => {
    t.string('common_name', 100).nullable();
    t.string('sex', 20).nullable();
    t.string('region', 100).nullable();
    t.string('country', 100).nullable();
    t.string('hex', 10).nullable();
  });
  await knex.schema.alterTable('sensor_sources', (t) => {
    t.text('additional').notNullable().defaultTo('{}');
  });
  await knex.schema.alterTable('sensor_providers', (t) => {
    t.string('display_name', 100).notNullable().defaultTo('');
    t.text('additional').notNullable().defaultTo('{}');
  });

  // A source tracks a subject over [range_lower, range_upper) (upper null: open ended).
  // Observations reach a subject through the assignments that cover their recorded_at.
  await knex.schema.createTable('subject_sources', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('subject_id').notNullable().references('id').inTable('subjects').onDelete('CASCADE');
    t.uuid('source_id').notNullable().references('id').inTable('sensor_sources').onDelete('CASCADE');
    t.bigInteger('range_lower').notNullable();
    t.bigInteger('range_upper').nullable();
    t.text('additional').notNullable().defaultTo('{}');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['subject_id', 'range_lower']);
    t.index(['source_id', 'range_lower']);
    t.index(['tenant_id']);
  });
  // Today's current links become assignments from the beginning of time, so existing tracks show.
  const linked = (await knex('sensor_sources').select('id', 'tenant_id', 'subject_id', 'created_at').whereNotNull('subject_id')) as Array<Record<string, unknown>>;
  for (let i = 0; i < linked.length; i += 200) {
    await knex('subject_sources').insert(
      linked.slice(i, i + 200).map((row) => ({ id: randomUUID(), tenant_id: row.tenant_id, subject_id: row.subject_id, source_id: row.id, range_lower: 0, range_upper: null, additional: '{}', created_at: Number(row.created_at), updated_at: Number(row.created_at) })),
    );
  }

  // An incident `contains` other events (the original's event relationships).
  await knex.schema.createTable('event_relationships', (t) => {
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    // Event ids are unique per tenant (20261123_0201_tenant_scoped_ids): keys carry the tenant.
    t.uuid('from_event_id').notNullable();
    t.string('type', 30).notNullable();
    t.uuid('to_event_id').notNullable();
    t.integer('ordernum').nullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['tenant_id', 'from_event_id', 'type', 'to_event_id']);
    t.foreign(['tenant_id', 'from_event_id'], 'event_relationships_from_foreign').references(['tenant_id', 'id']).inTable('events').onDelete('CASCADE');
    t.foreign(['tenant_id', 'to_event_id'], 'event_relationships_to_foreign').references(['tenant_id', 'id']).inTable('events').onDelete('CASCADE');
    t.index(['tenant_id', 'to_event_id']);
  });

  // Messages to and from subjects (through a source, the device) and users.
  await knex.schema.createTable('messages', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    // 'inbox': from a subject/device to the operations room; 'outbox': to a subject/device.
    t.string('message_type', 10).notNullable();
    t.uuid('subject_id').nullable().references('id').inTable('subjects').onDelete('SET NULL');
    t.uuid('source_id').nullable().references('id').inTable('sensor_sources').onDelete('SET NULL');
    t.uuid('user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.text('text').notNullable();
    t.string('status', 20).notNullable().defaultTo('received');
    t.double('latitude').nullable();
    t.double('longitude').nullable();
    t.bigInteger('message_time').notNullable();
    t.boolean('read').notNullable().defaultTo(false);
    t.text('additional').notNullable().defaultTo('{}');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['tenant_id', 'message_time']);
    t.index(['subject_id', 'message_time']);
  });

  // Spatial feature sets imported from GeoJSON; bbox columns answer the map's bbox filter.
  await knex.schema.createTable('feature_sets', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.string('feature_type', 100).notNullable().defaultTo('');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'name']);
  });
  await knex.schema.createTable('features', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('featureset_id').notNullable().references('id').inTable('feature_sets').onDelete('CASCADE');
    t.string('name', 255).notNullable().defaultTo('');
    t.text('geometry').notNullable();
    t.text('properties').notNullable().defaultTo('{}');
    t.double('min_longitude').notNullable();
    t.double('min_latitude').notNullable();
    t.double('max_longitude').notNullable();
    t.double('max_latitude').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['featureset_id']);
    t.index(['tenant_id', 'min_longitude']);
  });

  // The map's events bbox filter and the events export read by position within the tenant.
  await knex.schema.alterTable('events', (t) => t.index(['tenant_id', 'longitude', 'latitude']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => t.dropIndex(['tenant_id', 'longitude', 'latitude']));
  for (const table of ['features', 'feature_sets', 'messages', 'event_relationships', 'subject_sources']) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('sensor_providers', (t) => {
    t.dropColumn('display_name');
    t.dropColumn('additional');
  });
  await knex.schema.alterTable('sensor_sources', (t) => t.dropColumn('additional'));
  await knex.schema.alterTable('subjects', (t) => {
    for (const column of ['common_name', 'sex', 'region', 'country', 'hex']) t.dropColumn(column);
  });
}
