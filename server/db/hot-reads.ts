import BetterSqlite3 from 'better-sqlite3';
import type { DatabaseConfig } from '../config.js';
import { CoalescedReads } from './coalesced-reads.js';
import { openPostgresHotReads } from './hot-reads-postgres.js';
import { HOT_SQL } from './hot-sql.js';

export type Row = Record<string, unknown>;

/**
 * The reads on every request's hot path (token → user and client, permissions, catalog
 * version), as fixed SQL prepared once: no query building per request. Only reads outside
 * transactions use this; a transaction reads through its own connection so that it sees its
 * own writes.
 *
 * - SQLite: a read-only connection of its own. In WAL mode it sees exactly what is committed
 *   and never waits for the writer.
 * - PostgreSQL: a small pool of its own with named (server-side prepared) statements.
 *
 * On both, catalog-version reads are coalesced per key (`CoalescedReads`): the requests of one
 * event-loop iteration share one read, which is never older than any of them.
 */
export interface HotReads {
  accessTokenWithOwner(tokenHash: string): Promise<Row | undefined>;
  permissionsOf(userId: string): Promise<string[]>;
  catalogVersion(tenantId: string, catalog: string): Promise<Row | undefined>;
  close(): Promise<void>;
}

export interface HotReadOptions {
  /** Errors of idle pooled connections (a restarted server), which have no caller to go to. */
  onIdleError?(error: Error): void;
}

export function openHotReads(config: DatabaseConfig, options: HotReadOptions = {}): HotReads {
  if (config.dialect === 'postgres') return openPostgresHotReads(config, options);
  const db = new BetterSqlite3(config.filename, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const token = db.prepare(HOT_SQL.token);
  const permissions = db.prepare(HOT_SQL.permissions).pluck();
  const version = db.prepare(HOT_SQL.catalogVersion);
  const versions = new CoalescedReads<Row | undefined>();
  return {
    accessTokenWithOwner: async (hash) => token.get(hash) as Row | undefined,
    permissionsOf: async (userId) => permissions.all(userId) as string[],
    catalogVersion: (tenantId, catalog) => versions.get(`${tenantId}\u0000${catalog}`, () => version.get(tenantId, catalog) as Row | undefined),
    close: async () => void db.close(),
  };
}
