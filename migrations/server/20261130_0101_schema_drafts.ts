import type { Knex } from 'knex';

/**
 * Issue 28: schema drafts and publish notes.
 *
 * `catalog_drafts` holds at most one draft `{json, ui}` per catalog item, outside the item's own
 * row: list, detail, sync and history never read it, so field clients do not see a draft until it
 * is published. `based_on_sequence` is the item's latest history sequence when the draft was
 * written (publish refuses a draft the item has moved past, unless asked to rebase).
 * `catalog_revisions.note` records what a publish deliberately allowed to break, with the reasons.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalog_drafts', (t) => {
    t.uuid('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('catalog', 40).notNullable();
    t.uuid('item_id').notNullable();
    t.text('schema').notNullable();
    t.integer('based_on_sequence').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.uuid('updated_by_user_id').nullable();
    t.string('updated_by_username', 30).nullable();
    t.primary(['tenant_id', 'catalog', 'item_id']);
  });
  await knex.schema.alterTable('catalog_revisions', (t) => {
    t.text('note').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('catalog_revisions', (t) => t.dropColumn('note'));
  await knex.schema.dropTableIfExists('catalog_drafts');
}
