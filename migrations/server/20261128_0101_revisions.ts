import type { Knex } from 'knex';

/**
 * Revisions (issue 26 §2; docs/design/offline-writes-plan.md §2).
 *
 * Events already carry `revision`, a compare-and-set counter. Patrols, their segments and
 * subjects gain one: `revision` moves by one with every write of the record's own fields (a
 * segment's is set to its patrol's new revision when the segment changes, so one patrol has one
 * history stream). An update names the revision it was based on; the merge compares against it.
 * `tenants.conflict_policy` is what a same-field conflict does: `hold` (kept open for a person,
 * as ODK Central flags them), `server_wins` or `last_writer_wins` (settled, both values kept).
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['patrols', 'patrol_segments', 'subjects']) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('revision').notNullable().defaultTo(1);
    });
  }
  await knex.schema.alterTable('tenants', (t) => {
    t.string('conflict_policy', 20).notNullable().defaultTo('hold');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tenants', (t) => t.dropColumn('conflict_policy'));
  for (const table of ['subjects', 'patrol_segments', 'patrols']) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('revision'));
  }
}
