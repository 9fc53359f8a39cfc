/**
 * PostgreSQL's snapshot horizon is the whole cluster's: a test that holds a transaction open on
 * purpose (the loss cases' held transaction) keeps every other test database's feed `settling`
 * meanwhile. Test files that hold it, and those that assert a verified pull, take turns on one
 * session advisory lock in the shared database (released when the file ends).
 */
import pg from 'pg';
import type { Test } from 'tap';
import { adminUrl, dialect } from './database.js';

const HORIZON_LOCK = 7_257_025;

export async function takeHorizonTurn(t: Test): Promise<void> {
  if (dialect !== 'postgres') return;
  const client = new pg.Client({ connectionString: adminUrl });
  try {
    await client.connect();
  } catch {
    return; // No PostgreSQL: the file skips its PostgreSQL half anyway.
  }
  await client.query('SELECT pg_advisory_lock($1)', [HORIZON_LOCK]);
  t.teardown(() => client.end());
}
