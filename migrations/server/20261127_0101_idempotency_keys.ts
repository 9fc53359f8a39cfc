import type { Knex } from 'knex';

/**
 * Idempotency keys of record writes (issue 26 item 1; docs/sync.md "Idempotent writes").
 *
 * One row per (tenant, principal, key): written by the write's own transaction (so a rollback
 * leaves no key) with `state = 'committed'`, the request's hash and the record it wrote; then,
 * once the handler has answered, one UPDATE stores the answer (`state = 'answered'`: status,
 * body before presentation, and the headers a replay repeats). Rows are deleted after
 * `expires_at` (at least 30 days) through `idempotency_keys_expiry_idx`.
 *
 * The plan's merge-only columns (`record_revision`, `outcome`, `device_id`) are left to the
 * revisions and batched-push packages, which add them in their own migration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('tenant_id').notNullable();
    t.string('principal', 80).notNullable();
    t.string('key', 255).notNullable();
    t.specificType('request_hash', 'char(64)').notNullable();
    t.string('op', 40);
    t.string('state', 10).notNullable();
    t.string('record_kind', 16);
    t.string('record_id', 64);
    t.smallint('response_status');
    t.text('response_body');
    t.text('response_headers');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.primary(['tenant_id', 'principal', 'key']);
    t.index(['expires_at'], 'idempotency_keys_expiry_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
