import { randomUUID } from 'node:crypto';
import t from 'tap';
import { serverMigrations } from '../../../migrations/server/index.js';
import type { LogEntry } from '../../../server/domain/sync/ports.js';
import { dialect } from '../../helpers/database.js';
import { openLogFixture, recount } from './change-log-support.js';

t.test(`the change-feed migration runs down and up again (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { knex } = fixture.database;
  const tables = ['sync_changes', 'sync_members', 'sync_scope_sums', 'sync_tenant_state'];
  for (const table of tables) t.ok(await knex.schema.hasTable(table), `${table} exists`);
  const migration = serverMigrations.find((m) => m.name === '20261126_0101_change_feed')!.migration;
  await migration.down!(knex);
  for (const table of tables) t.notOk(await knex.schema.hasTable(table), `${table} dropped`);
  await migration.up(knex);
  for (const table of tables) t.ok(await knex.schema.hasTable(table), `${table} back`);
  if (dialect === 'sqlite') {
    // AUTOINCREMENT: a pruned last row's position is never handed out again.
    const [row] = (await knex.raw("SELECT sql FROM sqlite_master WHERE name = 'sync_changes'")) as Array<{ sql: string }>;
    t.match(row!.sql, /autoincrement/i);
  }
  await fixture.store.transaction((repos) => repos.sync.append(fixture.tenantId, [{ kind: 'event', id: randomUUID(), op: 'put', scopes: ['ev:all'] }], 5));
  const change = await knex('sync_changes').first();
  t.equal(Number(change.at), 5);
  if (dialect === 'postgres') t.ok(Number(change.txid) > 0, 'txid is the writing transaction\'s');
  else t.equal(Number(change.txid), 0);
});

t.test(`random appends keep the scope sums equal to a recount, versions increase per record (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const ids = Array.from({ length: 12 }, () => randomUUID());
  const pool = ['ev:all', 'ev:day:2026-11-20', 'ev:day:2026-11-21', 'ev:cat:a', 'ev:by:u1', 'ev:team:g1', 'pa:open', 'su:nogroup'];
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 60; round++) {
    const entries: LogEntry[] = [];
    for (let i = 0, count = 1 + random(5); i < count; i++) {
      const id = ids[random(ids.length)]!;
      const kind = random(2) === 0 ? 'event' : 'subject';
      if (random(5) === 0) entries.push({ kind, id, op: 'delete', scopes: [] });
      else entries.push({ kind, id, op: 'put', scopes: pool.filter(() => random(3) === 0) });
    }
    await store.transaction((repos) => repos.sync.append(tenantId, entries, round));
    if (round % 10 === 9) {
      const { counted, stored, badHashes } = await recount(database, tenantId);
      t.same(stored, counted, `round ${round}: stored sums equal the recount`);
      t.equal(badHashes, 0);
    }
  }
  const rows = (await database.knex('sync_changes').where({ tenant_id: tenantId }).orderBy('position')) as Array<Record<string, unknown>>;
  const last = new Map<string, Record<string, unknown>>();
  let ordered = true;
  let oldScopesFollow = true;
  for (const row of rows) {
    const key = `${row.kind}/${row.record_id}`;
    const before = last.get(key);
    if (before && Number(before.position) >= Number(row.position)) ordered = false;
    const expectedOld = before && before.op === 'put' ? String(before.scopes).split(' ').filter(Boolean).sort().join(' ') : '';
    if (String(row.old_scopes) !== expectedOld) oldScopesFollow = false;
    last.set(key, row);
  }
  t.ok(ordered, 'each record\'s positions increase');
  t.ok(oldScopesFollow, 'each row\'s old_scopes are the scopes its record\'s previous row left it in');
  let versionsMatch = true;
  for (const [key, row] of last) {
    const [kind, id] = key.split('/');
    const members = (await database.knex('sync_members').where({ tenant_id: tenantId, kind, record_id: id })) as Array<Record<string, unknown>>;
    const wanted = row.op === 'put' ? String(row.scopes).split(' ').filter(Boolean).length : 0;
    if (members.length !== wanted || members.some((m) => Number(m.version) !== Number(row.position))) versionsMatch = false;
  }
  t.ok(versionsMatch, 'a record\'s members are its latest change\'s scopes, at version = that change\'s position');
});

t.test(`one append of many records and a record twice in one call (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const ids = Array.from({ length: 700 }, () => randomUUID());
  await store.transaction((repos) => repos.sync.append(tenantId, ids.map((id) => ({ kind: 'event' as const, id, op: 'put' as const, scopes: ['ev:all', 'ev:cat:x'] })), 1));
  const twice = ids[0]!;
  await store.transaction((repos) => repos.sync.append(tenantId, [{ kind: 'event', id: twice, op: 'put', scopes: ['ev:all'] }, { kind: 'event', id: twice, op: 'delete', scopes: [] }], 2));
  t.equal(Number((await database.knex('sync_changes').where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n), 701, 'one row per record and call');
  const { counted, stored } = await recount(database, tenantId);
  t.same(stored, counted);
  t.equal(counted.filter((line) => line.startsWith('ev:all/')).reduce((n, line) => n + Number(/n=(\d+)/.exec(line)![1]), 0), 699, 'the deleted record left ev:all');
});

t.test(`concurrent writers of the same records: versions in commit order, sums exact (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const scopes = [['ev:all', 'ev:cat:a'], ['ev:all', 'ev:cat:b'], ['ev:all']];
  await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      store.transaction(async (repos) => {
        // Different records in a different order per writer: the sorted locks keep it deadlock-free.
        const mine = i % 2 === 0 ? ids : [...ids].reverse();
        await repos.sync.append(tenantId, mine.map((id, j) => ({ kind: 'event' as const, id, op: 'put' as const, scopes: scopes[(i + j) % 3]! })), i);
      }),
    ),
  );
  for (const id of ids) {
    const last = await database.knex('sync_changes').where({ tenant_id: tenantId, record_id: id }).orderBy('position', 'desc').first();
    const members = (await database.knex('sync_members').where({ tenant_id: tenantId, record_id: id })) as Array<Record<string, unknown>>;
    t.ok(members.length > 0 && members.every((m) => Number(m.version) === Number(last.position)), 'the members are at the latest position');
    t.same(members.map((m) => m.scope_key).sort(), String(last.scopes).split(' ').sort(), 'and in the latest change\'s scopes');
  }
  const { counted, stored } = await recount(database, tenantId);
  t.same(stored, counted);
  const n = counted.filter((line) => line.startsWith('ev:all/')).reduce((sum, line) => sum + Number(/n=(\d+)/.exec(line)![1]), 0);
  t.equal(n, 3, 'three records in ev:all');
});
