import type { Knex } from 'knex';

/**
 * Patrol notes and files take client-supplied ids (offline clients create them), so, like
 * patrols, segments and events in 20261123_0201, their ids are unique per tenant: primary key
 * `(tenant_id, id)`. Before, an id another tenant had used was a 409 (an existence oracle).
 *
 * The tables are rebuilt (SQLite cannot change a primary key in place): new table, copy, drop,
 * rename, index. Nothing points at them. `down` restores the global keys; it fails if two
 * tenants share an id by then.
 */

type Key = 'tenant' | 'global';

const TABLES: Record<string, (t: Knex.CreateTableBuilder) => void> = {
  patrol_notes(t) {
    t.uuid('id').notNullable();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('patrol_id').notNullable();
    t.text('text').notNullable();
    t.uuid('created_by_user_id').nullable();
    t.string('created_by_username', 30).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  },
  patrol_files(t) {
    t.uuid('id').notNullable();
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('patrol_id').notNullable();
    t.string('sha256', 64).notNullable();
    t.string('storage_path', 200).notNullable();
    t.string('filename', 255).notNullable();
    t.string('content_type', 100).notNullable();
    t.bigInteger('size').notNullable();
    t.text('comment').notNullable().defaultTo('');
    t.integer('ordernum').nullable();
    t.uuid('created_by_user_id').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  },
};

/** PostgreSQL names a primary key's index, and both generations exist while rebuilding: the names alternate. */
const pkName = (table: string, key: Key) => (key === 'tenant' ? `${table}_tenant_id_pkey` : `${table}_tenant_pkey`);

async function rebuild(knex: Knex, key: Key): Promise<void> {
  for (const [table, define] of Object.entries(TABLES)) {
    const next = `${table}__next`;
    await knex.schema.createTable(next, (t) => {
      define(t);
      t.primary(key === 'tenant' ? ['tenant_id', 'id'] : ['id'], pkName(table, key));
      t.foreign(['tenant_id', 'patrol_id'], `${table}_tenant_id_patrol_id_foreign`).references(['tenant_id', 'id']).inTable('patrols').onDelete('CASCADE');
    });
    const columns = Object.keys(await knex(table).columnInfo()).map((column) => `"${column}"`).join(', ');
    await knex.raw(`INSERT INTO ${next} (${columns}) SELECT ${columns} FROM ${table}`);
    await knex.schema.dropTable(table);
    await knex.schema.renameTable(next, table);
    await knex.schema.alterTable(table, (t) => t.index(['tenant_id', 'patrol_id']));
  }
}

export async function up(knex: Knex): Promise<void> {
  await rebuild(knex, 'tenant');
  // The CLI's own client reads the fieldops shapes whatever FIELDOPS_API_PROFILE says.
  await knex('oauth_clients').where({ client_id: 'fieldops-cli' }).whereNull('api_profile').update({ api_profile: 'fieldops' });
}

export async function down(knex: Knex): Promise<void> {
  await rebuild(knex, 'global');
}
