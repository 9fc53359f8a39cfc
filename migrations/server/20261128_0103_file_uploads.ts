import type { Knex } from 'knex';

/** Placeholder registered by step 0 of issue 26; its package fills it in (docs/design/offline-writes-plan.md §8). */
export async function up(_knex: Knex): Promise<void> {}

export async function down(_knex: Knex): Promise<void> {}
