import BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { DatabaseConfig } from '../config.js';
import { CLIENT_COLUMNS } from './repositories/clients.js';
import { USER_COLUMNS } from './repositories/users.js';

type Row = Record<string, unknown>;

/**
 * The reads on every request's hot path (token → user and client, permissions, catalog
 * version), as fixed SQL: no query building per request. On SQLite they run on a read-only
 * connection of their own with statements prepared once; in WAL mode it sees exactly what is
 * committed, and never waits for the writer. On PostgreSQL they go through the pool as raw
 * queries. Only reads outside transactions use this; a transaction reads through its own
 * connection so that it sees its own writes.
 */
export interface HotReads {
  accessTokenWithOwner(tokenHash: string): Promise<Row | undefined>;
  permissionsOf(userId: string): Promise<string[]>;
  catalogVersion(tenantId: string, catalog: string): Promise<Row | undefined>;
  close(): void;
}

const TOKEN_SQL = `SELECT t.*, ${USER_COLUMNS.map((c) => `u.${c} AS u__${c}`).join(', ')}, ${CLIENT_COLUMNS.map((c) => `c.${c} AS c__${c}`).join(', ')}
  FROM oauth_access_tokens t JOIN users u ON u.id = t.user_id JOIN oauth_clients c ON c.id = t.client_pk
  WHERE t.token_hash = ? LIMIT 1`;
const PERMISSIONS_SQL = 'SELECT codename FROM user_permissions WHERE user_id = ?';
const VERSION_SQL = 'SELECT version, last_modified FROM catalog_versions WHERE tenant_id = ? AND catalog = ?';

export function openHotReads(config: DatabaseConfig, knex: Knex): HotReads {
  if (config.dialect === 'sqlite') {
    const db = new BetterSqlite3(config.filename, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const token = db.prepare(TOKEN_SQL);
    const permissions = db.prepare(PERMISSIONS_SQL).pluck();
    const version = db.prepare(VERSION_SQL);
    return {
      accessTokenWithOwner: async (hash) => token.get(hash) as Row | undefined,
      permissionsOf: async (userId) => permissions.all(userId) as string[],
      catalogVersion: async (tenantId, catalog) => version.get(tenantId, catalog) as Row | undefined,
      close: () => db.close(),
    };
  }
  const rows = async (sql: string, bindings: readonly string[]) => ((await knex.raw(sql, bindings)) as { rows: Row[] }).rows;
  return {
    accessTokenWithOwner: async (hash) => (await rows(TOKEN_SQL, [hash]))[0],
    permissionsOf: async (userId) => (await rows(PERMISSIONS_SQL, [userId])).map((row) => row.codename as string),
    catalogVersion: async (tenantId, catalog) => (await rows(VERSION_SQL, [tenantId, catalog]))[0],
    close: () => undefined,
  };
}
