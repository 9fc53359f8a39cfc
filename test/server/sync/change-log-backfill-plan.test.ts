/**
 * The backfill's choice of records (SyncRepository.unlogged) stays linear in its step size
 * whatever the statistics say. Its first form, one "records with no member" anti-join, was
 * planned by PostgreSQL right after an upgrade (statistics from when sync_members was empty) as
 * a nested loop over every member of the kind, so each chunk was slower than the last (20,000
 * events: 260 s instead of 17 s). No timing here: PostgreSQL counts the rows each statement
 * examines (EXPLAIN ANALYZE), SQLite shows each statement's index (EXPLAIN QUERY PLAN).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import t from 'tap';
import type { Database } from '../../../server/db/knex.js';
import { dialect } from '../../helpers/database.js';
import { insertEvent, markInTransaction, openLogFixture } from './change-log-support.js';

const EVENTS = 2000;
const STEP = 100;

/** Inserts `count` events straight into the table (written before the log existed); their ids ascending. */
async function insertEvents(database: Database, tenantId: string, count: number): Promise<string[]> {
  const rows = Array.from({ length: count }, () => ({
    id: randomUUID(), tenant_id: tenantId, event_type: 'none', time: 1, latitude: null, longitude: null,
    event_details: '{}', created_by_user_id: null, created_at: 1, updated_at: 1, serial_number: null, revision: 1,
  }));
  await database.knex.batchInsert('events', rows, 250);
  return rows.map((row) => row.id).sort();
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan's nodes produced or filtered out, over all their loops (EXPLAIN gives per-loop averages). */
function rowsExamined(node: PlanNode): number {
  const own = (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Join Filter'] ?? 0)) * node['Actual Loops'];
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsExamined(child), 0);
}

interface Statement {
  sql: string;
  bindings: unknown[];
}

/** The statements `work` sends through `knex` (as the driver gets them), and its result. */
async function capture<R>(knex: Knex, work: () => Promise<R>): Promise<{ result: R; statements: Statement[] }> {
  const statements: Statement[] = [];
  const listen = (query: { sql: string; bindings?: unknown[] }) => statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
  knex.on('query', listen);
  try {
    return { result: await work(), statements };
  } finally {
    knex.off('query', listen);
  }
}

/** PostgreSQL: rows examined by running the statement again under EXPLAIN ANALYZE (selects only). */
async function pgRowsExamined(knex: Knex, statement: Statement): Promise<number> {
  const connection = (await knex.client.acquireConnection()) as { query(q: { text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }> };
  try {
    const result = await connection.query({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, values: statement.bindings });
    return rowsExamined((result.rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

/** SQLite: the plan's lines (EXPLAIN QUERY PLAN). */
async function sqlitePlan(knex: Knex, statement: Statement): Promise<string[]> {
  const rows = (await knex.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, statement.bindings as Knex.RawBinding[])) as Array<{ detail: string }>;
  return rows.map((row) => row.detail);
}

t.test(`a step examines the next records by id, logged or not, and says where it got to (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push(await insertEvent(database, tenantId));
  ids.sort();
  await markInTransaction(store, tenantId, 'event', ids.slice(0, 4));
  const { sync } = store.repos;
  t.same(await sync.unlogged(tenantId, 'event', null, 3), { ids: [], last: ids[2], done: false }, 'all logged: nothing to mark, and the keyset still advances');
  t.same(await sync.unlogged(tenantId, 'event', ids[2]!, 3), { ids: [ids[4], ids[5]], last: ids[5], done: false });
  t.same(await sync.unlogged(tenantId, 'event', ids[5]!, 3), { ids: [ids[6]], last: ids[6], done: true }, 'fewer than asked for: the kind is done');
  t.same(await sync.unlogged(tenantId, 'event', ids[6]!, 3), { ids: [], last: ids[6], done: true });
  t.same(await sync.unlogged(tenantId, 'patrol', null, 3), { ids: [], last: null, done: true }, 'a kind with no records');
  t.same(await sync.unlogged(randomUUID(), 'event', null, 3), { ids: [], last: null, done: true }, 'another tenant\'s records are not examined');
});

/** PostgreSQL, as right after an upgrade: statistics that say both tables are empty, and none taken since. */
async function emptyStatistics(knex: Knex): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const table of ['events', 'sync_members']) await knex.raw(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  await knex.raw('ANALYZE events, sync_members');
}

t.test(`each step's statements are linear in the step, with statistics from before the members existed (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const { knex } = database;
  await emptyStatistics(knex);
  const ids = await insertEvents(database, tenantId, EVENTS);
  // Every other event is logged already: each step meets both.
  const logged = ids.filter((_, i) => i % 2 === 0);
  await markInTransaction(store, tenantId, 'event', logged);
  const members = Number((await knex('sync_members').where({ tenant_id: tenantId, kind: 'event' }).count({ n: '*' }).first())!.n);
  t.ok(members >= EVENTS / 2, `the kind has ${members} members, many more than a step examines`);

  const found: string[] = [];
  let after: string | null = null;
  let steps = 0;
  let worst = 0;
  let examinedInAll = 0;
  let planned = 0;
  const unplanned: string[] = [];
  for (;;) {
    const { result: step, statements } = await capture(knex, () => store.repos.sync.unlogged(tenantId, 'event', after, STEP));
    steps++;
    for (const statement of statements) {
      planned++;
      if (dialect === 'postgres') {
        const examined = await pgRowsExamined(knex, statement);
        worst = Math.max(worst, examined);
        examinedInAll += examined;
      } else {
        const plan = await sqlitePlan(knex, statement);
        if (plan.length === 0) unplanned.push(`${statement.sql}: no plan`);
        // A full scan, a sort of the whole tenant's records, or an index not probed by record id.
        const bad = plan.filter((line) => /^SCAN (?!CONSTANT)/.test(line) || /TEMP B-TREE FOR ORDER BY/.test(line) || (/sync_members/.test(line) && !/record_id=\?/.test(line)));
        if (bad.length > 0) unplanned.push(`${statement.sql}: ${bad.join('; ')}`);
      }
    }
    found.push(...step.ids);
    after = step.last;
    if (step.done) break;
  }
  t.equal(steps, EVENTS / STEP + 1, 'one step per STEP records (the last finds none left)');
  t.equal(planned, 2 * steps - 1, 'two statements a step (one when no record is left), each examined');
  t.same(found, ids.filter((_, i) => i % 2 === 1), 'the steps together find exactly the records in no scope');
  if (dialect === 'postgres') {
    // A statement probing per candidate examines a few rows per candidate; the anti-join examined
    // (candidates x members of the kind) rows, an IN list read every member of the kind.
    t.ok(worst <= 5 * STEP, `the most rows one statement examined: ${worst} (at most ${5 * STEP})`);
    t.ok(examinedInAll <= 5 * EVENTS, `rows examined by all steps: ${examinedInAll} (at most ${5 * EVENTS})`);
  } else {
    t.same(unplanned, [], 'every statement searches an index, by record id for sync_members');
  }
});

t.test(`marking an event type re-reads its events' category keys by index, with the same statistics (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const { knex } = database;
  await emptyStatistics(knex);
  const type = randomUUID();
  await knex('event_types').insert({ id: type, tenant_id: tenantId, value: 'none', category: 'security', schema: '{}', created_at: 1, updated_at: 1 });
  const ids = await insertEvents(database, tenantId, EVENTS / 2);
  await markInTransaction(store, tenantId, 'event', ids);
  const changesOf = async () => Number((await knex('sync_changes').where({ tenant_id: tenantId, kind: 'event' }).count({ n: '*' }).first())!.n);
  const categoryKeys = async () => Number((await knex('sync_members').where({ tenant_id: tenantId, kind: 'event' }).where('scope_key', 'like', 'ev:cat:%').count({ n: '*' }).first())!.n);
  t.equal(await categoryKeys(), ids.length, 'every event is in its type\'s category');

  // As the backfill's event_type chunk: the type kept its category, so no event moves.
  const { statements } = await capture(knex, () => markInTransaction(store, tenantId, 'event_type', [type]));
  t.equal(await changesOf(), ids.length, 'a type that kept its category moves no event');
  if (dialect === 'postgres') {
    const probes = statements.filter((s) => /^\s*select/i.test(s.sql) && /"events"/.test(s.sql) && /\bsync_members\b/.test(s.sql));
    t.equal(probes.length, 1, 'one statement looks for events off the category');
    const examined = await pgRowsExamined(knex, probes[0]!);
    // A probe per event examines its few members; the anti-join read every member of the kind per event.
    t.ok(examined <= 10 * ids.length, `rows it examined: ${examined} (at most ${10 * ids.length})`);
  }

  // A type that lost its category: its events leave their category key.
  await knex('event_types').where({ id: type }).update({ category: '' });
  await markInTransaction(store, tenantId, 'event_type', [type]);
  t.equal(await changesOf(), 2 * ids.length, 'each of its events is logged again');
  t.equal(await categoryKeys(), 0, 'and none is in a category any more');
});
