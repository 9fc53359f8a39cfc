import type { Knex } from 'knex';

/**
 * The events family at the original paths (CONTRACT §11): a per-tenant serial number and a
 * revision (the ETag of an event, bumped by every change to it, its notes or its files) on
 * events; notes and the history of changes of an event; comments on event files. Existing
 * events get serial numbers in the order they were created. `updated_since` lists read the
 * (tenant_id, updated_at) index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.integer('serial_number').nullable();
    t.integer('revision').notNullable().defaultTo(1);
  });
  const counters = new Map<string, number>();
  const rows = await knex('events').select('id', 'tenant_id').orderBy([{ column: 'tenant_id' }, { column: 'created_at' }, { column: 'id' }]);
  for (const row of rows as Array<{ id: string; tenant_id: string }>) {
    const next = (counters.get(row.tenant_id) ?? 0) + 1;
    counters.set(row.tenant_id, next);
    await knex('events').where({ id: row.id }).update({ serial_number: next });
  }
  await knex.schema.alterTable('events', (t) => {
    t.unique(['tenant_id', 'serial_number']);
    t.index(['tenant_id', 'updated_at']);
  });

  // The last serial number handed out per tenant: one row each, updated in the inserting
  // transaction (its row lock orders concurrent creators on PostgreSQL).
  await knex.schema.createTable('event_serials', (t) => {
    t.uuid('tenant_id').primary().references('id').inTable('tenants').onDelete('CASCADE');
    t.integer('last').notNullable();
  });
  for (const [tenantId, last] of counters) await knex('event_serials').insert({ tenant_id: tenantId, last });

  await knex.schema.createTable('event_notes', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.text('text').notNullable();
    t.uuid('created_by_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['event_id', 'created_at']);
  });

  await knex.schema.createTable('event_updates', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('type', 40).notNullable();
    t.text('message').notNullable();
    t.uuid('user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.bigInteger('time').notNullable();
    t.index(['event_id', 'time']);
  });

  await knex.schema.alterTable('event_files', (t) => {
    t.text('comment').notNullable().defaultTo('');
    t.uuid('created_by_user_id').nullable();
    t.bigInteger('updated_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('event_files', (t) => {
    t.dropColumn('updated_at');
    t.dropColumn('created_by_user_id');
    t.dropColumn('comment');
  });
  await knex.schema.dropTableIfExists('event_updates');
  await knex.schema.dropTableIfExists('event_notes');
  await knex.schema.dropTableIfExists('event_serials');
  await knex.schema.alterTable('events', (t) => {
    t.dropIndex(['tenant_id', 'updated_at']);
    t.dropUnique(['tenant_id', 'serial_number']);
  });
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('revision');
    t.dropColumn('serial_number');
  });
}
