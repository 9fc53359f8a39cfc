import type { Knex } from 'knex';

/**
 * Offline writes that lose nothing (issue 26 §2–§6; docs/design/offline-writes-plan.md §8).
 *
 * - `outbox` gains the base an update was recorded against (`base_revision`: the pulled record's
 *   revision; `base_entry`: the earlier entry of the same record it follows), the server's answer
 *   (`outcome` JSON, `revision` the record's revision after it), and a file entry's upload
 *   (`upload_url` once created, `upload_offset` acknowledged by the server, `upload_size`,
 *   `upload_sha256`, `upload_state` pending|receiving|stored|attached).
 * - `outbox_conflicts`: one row per field an entry met a conflict on (base, mine and theirs as
 *   JSON text), open until settled here (`fieldops outbox resolve`) or by the server's policy.
 * - `pulled_events`, `pulled_patrols`, `pulled_subjects` gain the revision they were pulled at.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox', (t) => {
    t.bigInteger('base_revision').nullable();
    t.string('base_entry', 255).nullable();
    t.text('outcome').nullable();
    t.bigInteger('revision').nullable();
    t.text('upload_url').nullable();
    t.bigInteger('upload_offset').nullable();
    t.bigInteger('upload_size').nullable();
    t.string('upload_sha256', 64).nullable();
    t.string('upload_state', 12).nullable();
  });
  await knex.schema.createTable('outbox_conflicts', (t) => {
    t.string('id', 64).primary();
    t.string('entry_id', 255).notNullable();
    t.string('field', 200).notNullable();
    t.text('base').nullable();
    t.text('mine').nullable();
    t.text('theirs').nullable();
    t.string('status', 10).notNullable();
    t.string('policy', 20).nullable();
    t.string('settled_by', 10).nullable();
    t.index(['entry_id'], 'outbox_conflicts_entry_idx');
  });
  for (const table of ['pulled_events', 'pulled_patrols', 'pulled_subjects']) {
    if (await knex.schema.hasTable(table)) {
      await knex.schema.alterTable(table, (t) => {
        t.bigInteger('revision').nullable();
      });
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['pulled_events', 'pulled_patrols', 'pulled_subjects']) {
    if ((await knex.schema.hasTable(table)) && (await knex.schema.hasColumn(table, 'revision'))) {
      await knex.schema.alterTable(table, (t) => t.dropColumn('revision'));
    }
  }
  await knex.schema.dropTableIfExists('outbox_conflicts');
  await knex.schema.alterTable('outbox', (t) => {
    for (const column of ['upload_state', 'upload_sha256', 'upload_size', 'upload_offset', 'upload_url', 'revision', 'outcome', 'base_entry', 'base_revision']) t.dropColumn(column);
  });
}
