import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { CoalescedReads } from './coalesced-reads.js';
import { numbered } from './direct.js';
import type { HotReadOptions, HotReads, Row } from './hot-reads.js';
import { HOT_SQL } from './hot-sql.js';

/** Connections of the hot-read pool, on top of the main pool's `FIELDOPS_PG_POOL_MAX`. */
export const HOT_POOL_MAX = 4;

const STATEMENTS = {
  token: { name: 'fieldops_hot_token', text: numbered(HOT_SQL.token) },
  permissions: { name: 'fieldops_hot_permissions', text: numbered(HOT_SQL.permissions) },
  catalogVersion: { name: 'fieldops_hot_catalog_version', text: numbered(HOT_SQL.catalogVersion) },
};

/**
 * PostgreSQL hot reads: a pool of their own, so that the revalidation path never queues behind
 * writes on the main pool, and named statements, which each connection parses and plans once.
 */
export function openPostgresHotReads(config: Extract<DatabaseConfig, { dialect: 'postgres' }>, options: HotReadOptions): HotReads {
  const connections = Math.min(HOT_POOL_MAX, config.poolMax);
  const pool = new pg.Pool({ connectionString: config.url, connectionTimeoutMillis: 5000, max: connections, idleTimeoutMillis: 30000 });
  // Reads of one key may overlap (each still younger than its callers), up to the pool's size.
  const versions = new CoalescedReads<Row | undefined>(connections);
  pool.on('error', (error) => options.onIdleError?.(error));
  const rows = async (statement: { name: string; text: string }, values: string[]) => (await pool.query<Row>({ ...statement, values })).rows;
  return {
    accessTokenWithOwner: async (hash) => (await rows(STATEMENTS.token, [hash]))[0],
    permissionsOf: async (userId) => (await rows(STATEMENTS.permissions, [userId])).map((row) => row.codename as string),
    catalogVersion: (tenantId, catalog) => versions.get(`${tenantId}\u0000${catalog}`, async () => (await rows(STATEMENTS.catalogVersion, [tenantId, catalog]))[0]),
    close: () => pool.end(),
  };
}
