import type { Knex } from 'knex';

/**
 * Server tracks in the mirror (issue 27): the fixes of the subjects the user can see, pulled
 * during `fieldops sync` from `trackingdata/export?format=json`, for `fieldops export tracks`.
 *
 * - `pulled_track_points`: one row per fix, unique by source and instant (`recorded_ms`, epoch
 *   milliseconds: the same instant written with another offset is the same fix). `recorded_at`
 *   keeps the server's text. `provider` is the source's provider key (manufacturer ids are unique
 *   per provider only). `manufacturer_id` + `recorded_ms` is indexed: a fix this laptop recorded
 *   and pushed is recognised when it comes back, by provider too (export writes it once).
 *   `subject_id` + `source_id` is indexed: the fixes of a subject's source the user no longer
 *   sees are deleted by it.
 * - `pulled_track_sources`: per subject and source, the newest fix pulled (the next sync asks
 *   `since` that); written in the same transaction as the fixes it describes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pulled_track_points', (t) => {
    t.string('source_id', 64).notNullable();
    t.bigInteger('recorded_ms').notNullable();
    t.string('recorded_at', 40).notNullable();
    t.string('subject_id', 64).notNullable();
    t.text('subject_name').nullable();
    t.text('manufacturer_id').nullable();
    t.string('provider', 100).nullable();
    t.string('source_type', 100).nullable();
    t.double('latitude').notNullable();
    t.double('longitude').notNullable();
    t.double('elevation').nullable();
    t.primary(['source_id', 'recorded_ms']);
    t.index(['manufacturer_id', 'recorded_ms'], 'pulled_track_points_manufacturer_idx');
    t.index(['subject_id', 'source_id'], 'pulled_track_points_subject_source_idx');
  });
  await knex.schema.createTable('pulled_track_sources', (t) => {
    t.string('subject_id', 64).notNullable();
    t.string('source_id', 64).notNullable();
    t.string('newest_recorded_at', 40).notNullable();
    t.bigInteger('newest_ms').notNullable();
    t.string('synced_at', 40).notNullable();
    t.primary(['subject_id', 'source_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('pulled_track_sources');
  await knex.schema.dropTableIfExists('pulled_track_points');
}
