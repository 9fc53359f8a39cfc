import type { Knex } from 'knex';
import * as foundation from './20261121_0001_foundation.js';

/**
 * The server's migrations, in order. Append only: a migration that has run anywhere is never
 * edited; a change is a new file. Migrations import no application code.
 */
export const serverMigrations: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261121_0001_foundation', migration: foundation },
];
