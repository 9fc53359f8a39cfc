import type { Knex } from 'knex';

/**
 * Resumable uploads (tus 1.0; issue 26 item 6; docs/design/offline-writes-plan.md §6 and §8).
 *
 * One row per upload, created before its first byte is stored: who made it (tenant, principal
 * `user:<id>`|`client:<client id>`, device), the creation's `Idempotency-Key` (`client_key`,
 * unique per tenant and principal: a repeated creation finds its upload), the declared length
 * and the claimed sha256. `state`: `receiving` → `stored` (the bytes are in the file store under
 * `sha256`; the row is then a reference the file sweeper respects) → `attached` (a file row of
 * `attached_kind`/`attached_record`/`attached_file` refers to them), or `failed` (checksum
 * mismatch). `locked_until`/`lock_id` are the cross-process lease of the upload's writer.
 * Rows are removed after `expires_at` by the upload sweep (server/storage/tus/sweep.ts).
 *
 * Added to the plan's columns: `attached_*` (an attach repeated with the same file id is
 * idempotent; another record is refused), `updated_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('file_uploads', (t) => {
    t.string('id', 64).primary();
    t.uuid('tenant_id').notNullable();
    t.string('principal', 120).notNullable();
    t.uuid('user_id');
    t.string('device_id', 64);
    t.string('client_key', 255);
    t.bigInteger('length').notNullable();
    t.specificType('sha256_claimed', 'char(64)').notNullable();
    t.string('filename', 255).notNullable();
    t.string('state', 10).notNullable();
    t.specificType('sha256', 'char(64)');
    t.bigInteger('size');
    t.string('storage_path', 200);
    t.string('content_type', 120);
    t.bigInteger('locked_until');
    t.string('lock_id', 64);
    t.string('attached_kind', 16);
    t.uuid('attached_record');
    t.uuid('attached_file');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('stored_at');
    t.unique(['tenant_id', 'principal', 'client_key'], { indexName: 'file_uploads_client_key_unique' });
    t.index(['expires_at'], 'file_uploads_expiry_idx');
    t.index(['sha256'], 'file_uploads_sha256_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_uploads');
}
