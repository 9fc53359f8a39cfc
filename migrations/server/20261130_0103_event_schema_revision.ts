import type { Knex } from 'knex';

/**
 * Issue 28 §4: the revision (catalog history `sequence`) of its v2 event type an event's details
 * were last written against; null for v1 types and for every event stored before this migration.
 *
 * No backfill, deliberately: the type's latest sequence now is not necessarily the one an old
 * event was recorded under (the type may have changed since), and the event's `updated_at` also
 * moves with notes and files, so matching history times would guess too. A wrong revision would
 * render old details through a form they were never entered in; null says "unknown revision"
 * honestly, and `?render=as_recorded` then lists every stored key under its own name.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.integer('schema_revision').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('schema_revision');
  });
}
