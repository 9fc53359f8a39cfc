import type { Knex } from 'knex';

/**
 * Per-tenant patrol serial counters (issue 17). A create takes the next serial by bumping its
 * tenant's row as the last write of its transaction, so the row lock is held only from there
 * to the commit. Seeded from the serials already stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('patrol_serials', (t) => {
    t.uuid('tenant_id').primary().references('id').inTable('tenants').onDelete('CASCADE');
    t.integer('last_serial').notNullable();
  });
  await knex.raw('INSERT INTO patrol_serials (tenant_id, last_serial) SELECT tenant_id, MAX(serial_number) FROM patrols GROUP BY tenant_id');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('patrol_serials');
}
