/**
 * For commands that must find the server's database rather than set one up (`fieldops admin`
 * without `--create`): a missing SQLite file, or a database without fieldops tables, is most
 * likely the wrong one (another working directory, DATABASE_URL unset), and creating it would
 * hide that mistake behind "No tenant ...".
 */
import fs from 'node:fs';
import type { Knex } from 'knex';
import { ConfigError, type DatabaseConfig } from '../config.js';
import { databaseLocation, openDatabase } from './knex.js';

const HINT = 'point DATABASE_URL (or --database) at the server\'s database, or --data-dir (FIELDOPS_DATA_DIR) at its data directory; a new database is set up by `fieldops serve`, or by this command with --create';

/** Before opening: a SQLite file must exist (opening would create it). */
export function requireDatabaseFile(config: DatabaseConfig): void {
  if (config.dialect === 'sqlite' && !fs.existsSync(config.filename)) throw new ConfigError(`no database at ${config.filename}`, HINT);
}

/** Once open: fieldops has migrated it before (its migration table, named in migrate.ts, is there). */
export async function requireFieldopsTables(knex: Knex, config: DatabaseConfig): Promise<void> {
  if (await knex.schema.hasTable('knex_migrations')) return;
  throw new ConfigError(`the database ${databaseLocation(config)} has no fieldops tables`, HINT);
}

/**
 * Whether the database holds a tenant already (a start after the first), read without creating
 * or migrating anything: false for a SQLite file that does not exist, an empty database, or one
 * that cannot be read (the start goes on and reports that itself).
 */
export async function databaseIsSetUp(config: DatabaseConfig): Promise<boolean> {
  if (config.dialect === 'sqlite' && !fs.existsSync(config.filename)) return false;
  const database = openDatabase(config);
  try {
    if (!(await database.knex.schema.hasTable('tenants'))) return false;
    return (await database.knex('tenants').first('id')) !== undefined;
  } catch {
    return false;
  } finally {
    await database.close();
  }
}
