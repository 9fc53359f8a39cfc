import type { Knex } from 'knex';

/** The site's map settings (name, center, zoom) that the web app opens on: one per tenant. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('site_maps', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable().unique().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.double('center_longitude').notNullable();
    t.double('center_latitude').notNullable();
    t.double('zoom').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('site_maps');
}
