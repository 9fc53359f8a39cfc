import type { Knex } from 'knex';

/**
 * Field-level history and conflicts of events and patrols (issue 26 §3; docs/design/
 * offline-writes-plan.md §8).
 *
 * `record_revisions`: one row per revision an update made (creates write none: the record's own
 * created_at/by say it). `fields` is JSON `{path: [before, after]}` over the merge's field paths
 * (protocol/merge-fields.ts); `merged` the paths changed since the update's base that it kept;
 * `entry_key` the Idempotency-Key of the write, so a replayed update is recognised and never
 * applied twice. `record_conflicts`: one row per field changed on both sides, all three values
 * kept as JSON, open until a person or the tenant's policy settles it.
 *
 * `idempotency_keys` gains what a batched push answers from a stored key: the revision the
 * write left, its outcome (JSON) and the device that sent it.
 *
 * History rows go with their record (the services delete them); pruning is a follow-up.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('record_revisions', (t) => {
    t.uuid('tenant_id').notNullable();
    t.string('kind', 16).notNullable();
    t.uuid('record_id').notNullable();
    t.bigInteger('revision').notNullable();
    t.string('action', 10).notNullable();
    t.bigInteger('base_revision');
    t.text('fields').notNullable();
    t.text('merged');
    t.uuid('user_id');
    t.string('client_id', 100);
    t.string('device_id', 64);
    t.string('entry_key', 255);
    t.bigInteger('at').notNullable();
    t.primary(['tenant_id', 'kind', 'record_id', 'revision']);
    t.index(['tenant_id', 'entry_key'], 'record_revisions_entry_idx');
  });
  await knex.schema.createTable('record_conflicts', (t) => {
    t.uuid('id').primary();
    t.uuid('tenant_id').notNullable();
    t.string('kind', 16).notNullable();
    t.uuid('record_id').notNullable();
    t.string('field', 200).notNullable();
    t.text('base_value');
    t.text('mine_value');
    t.text('theirs_value');
    t.bigInteger('base_revision');
    t.bigInteger('theirs_revision');
    t.bigInteger('revision');
    t.string('entry_key', 255);
    t.string('device_id', 64);
    t.uuid('user_id');
    t.string('policy', 20).notNullable();
    t.string('status', 10).notNullable();
    t.string('settled_by', 10);
    t.uuid('settled_user_id');
    t.bigInteger('settled_revision');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('settled_at');
    t.index(['tenant_id', 'status', 'kind', 'record_id'], 'record_conflicts_status_idx');
    t.index(['tenant_id', 'entry_key'], 'record_conflicts_entry_idx');
    t.index(['tenant_id', 'kind', 'record_id'], 'record_conflicts_record_idx');
  });
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.bigInteger('record_revision');
    t.text('outcome');
    t.string('device_id', 64);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('device_id');
    t.dropColumn('outcome');
    t.dropColumn('record_revision');
  });
  await knex.schema.dropTable('record_conflicts');
  await knex.schema.dropTable('record_revisions');
}
