import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import t from 'tap';
import { feedHorizon, HORIZON_SQL } from '../../../server/db/sync/horizon.js';
import type { Database } from '../../../server/db/knex.js';
import { dialect } from '../../helpers/database.js';
import { takeHorizonTurn } from '../../helpers/horizon-turn.js';
import { openLogFixture } from './change-log-support.js';

const require = createRequire(import.meta.url);

/** The feed's rule as one statement (H in the rows' own snapshot): what a reader may serve now. */
async function servable(database: Database, tenantId: string): Promise<Array<{ record_id: string; txid: number; position: number }>> {
  const result = (await database.knex.raw(
    `WITH h AS (SELECT ${HORIZON_SQL} AS x) SELECT c.record_id, c.txid, c.position FROM sync_changes c, h WHERE c.tenant_id = ? AND c.txid < h.x ORDER BY c.txid, c.position`,
    [tenantId],
  )) as { rows: Array<Record<string, unknown>> };
  return result.rows.map((row) => ({ record_id: String(row.record_id), txid: Number(row.txid), position: Number(row.position) }));
}

const put = (id: string) => [{ kind: 'event' as const, id, op: 'put' as const, scopes: ['ev:all'] }];

t.test('PostgreSQL: a transaction holding an xid keeps a later commit below the horizon until it ends', async (t) => {
  // It holds the cluster's horizon on purpose: in turn with the files that need it to move.
  await takeHorizonTurn(t);
  if (dialect !== 'postgres') return t.pass('PostgreSQL only', { skip: 'the SQLite run proves its own ordering below' });
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const held = new pg.Client({ connectionString: (database.knex.client.config.connection as { connectionString: string }).connectionString });
  await held.connect();
  t.teardown(() => held.end());
  await held.query('BEGIN');
  const heldXid = Number((await held.query('SELECT pg_current_xact_id()::text::bigint AS x')).rows[0].x);

  const early = randomUUID();
  await store.transaction((repos) => repos.sync.append(tenantId, put(early), 1));
  const committed = await database.knex('sync_changes').where({ tenant_id: tenantId, record_id: early }).first();
  t.ok(Number(committed.txid) > heldXid, 'the committed row\'s txid is above the held transaction\'s');
  t.same(await servable(database, tenantId), [], 'a reader cannot serve the committed row while an older transaction may still commit below it');
  const horizon = await feedHorizon(database.knex, 'postgres');
  t.ok(horizon !== null && horizon <= heldXid, 'the horizon is at most the held xid');

  // The held transaction now appends (a sync_changes row through its own connection) and commits.
  const late = randomUUID();
  await held.query("INSERT INTO sync_changes (tenant_id, kind, record_id, op, scopes, old_scopes, at) VALUES ($1, 'event', $2, 'put', 'ev:all', '', 2)", [tenantId, late]);
  await held.query('COMMIT');
  const lateRow = await database.knex('sync_changes').where({ tenant_id: tenantId, record_id: late }).first();
  t.equal(Number(lateRow.txid), heldXid);
  t.ok(Number(lateRow.position) > Number(committed.position), 'its position was taken later');

  // Other databases' transactions on this server also hold the horizon back: wait for it to pass.
  let rows = await servable(database, tenantId);
  for (let i = 0; i < 100 && rows.length < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    rows = await servable(database, tenantId);
  }
  t.same(rows.map((row) => row.record_id), [late, early], 'served in (txid, position) order: the later-committed, lower-txid row first');
});

t.test('SQLite: a writer waits for another process holding BEGIN IMMEDIATE, and positions follow commit order', async (t) => {
  if (dialect !== 'sqlite') return t.pass('SQLite only', { skip: 'the PostgreSQL run proves its own ordering above' });
  t.equal(await feedHorizon({} as never, 'sqlite'), null, 'no horizon: everything committed is safe');
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const filename = (database.knex.client.config.connection as { filename: string }).filename;
  const held = randomUUID();
  const holder = spawn(process.execPath, ['-e', `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(filename)});
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO sync_changes (tenant_id, kind, record_id, op, scopes, old_scopes, at) VALUES (?, 'event', ?, 'put', 'ev:all', '', 1)").run(${JSON.stringify(tenantId)}, ${JSON.stringify(held)});
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, 800);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const closed = new Promise((resolve) => holder.on('close', resolve));
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  const events: string[] = [];
  const writer = randomUUID();
  const writing = store.transaction(async (repos) => {
    events.push('writer began');
    await repos.sync.append(tenantId, put(writer), 2);
  });
  // Well within the holder's 800 ms: the writer must still be waiting (and the event loop free).
  setTimeout(() => events.push('300 ms passed'), 300);
  await writing;
  await closed;
  t.same(events, ['300 ms passed', 'writer began'], 'the writer waited for the holder\'s commit without blocking this process');
  const rows = (await database.knex('sync_changes').where({ tenant_id: tenantId }).orderBy('position').select('record_id')) as Array<{ record_id: string }>;
  t.same(rows.map((row) => row.record_id), [held, writer], 'positions in commit order');
});
