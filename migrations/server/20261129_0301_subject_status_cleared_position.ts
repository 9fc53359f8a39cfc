import type { Knex } from 'knex';

const POSITION = ['recorded_at', 'latitude', 'longitude'] as const;

/**
 * A subject whose last covered fix goes (its assignment deleted or moved, its source deleted)
 * keeps its subject_status row, with the position columns null and a fresh `updated_at`: the
 * `updated_since` reads find changed positions only through that column, so a deleted row
 * would leave pulls showing the old position. A row without a position reads as no position.
 * knex's setNullable is ALTER COLUMN on PostgreSQL and a table rebuild (indexes kept) on SQLite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subject_status', (t) => {
    for (const column of POSITION) t.setNullable(column);
  });
}

/** Rows without a position go first (the earlier representation of "no position"). */
export async function down(knex: Knex): Promise<void> {
  await knex('subject_status').whereNull('recorded_at').delete();
  await knex.schema.alterTable('subject_status', (t) => {
    for (const column of POSITION) t.dropNullable(column);
  });
}
