import { randomUUID } from 'node:crypto';
import t from 'tap';
import { backfillDone } from '../../../server/db/sync/tenant-state.js';
import { BACKFILL_STALE_MS, SyncBackfill } from '../../../server/domain/sync/backfill.js';
import { createLogger } from '../../../server/logger.js';
import { dialect } from '../../helpers/database.js';
import { type LogFixture, insertEvent, insertPatrol, insertSubject, markInTransaction, openLogFixture, recount } from './change-log-support.js';

const NOW = 10_000_000;

async function seed(fixture: LogFixture, tenantId: string): Promise<Map<string, string>> {
  const { database } = fixture;
  const records = new Map<string, string>();
  for (let i = 0; i < 7; i++) records.set(await insertEvent(database, tenantId, { by: null }), 'event');
  for (let i = 0; i < 2; i++) records.set((await insertPatrol(database, tenantId)).id, 'patrol');
  for (let i = 0; i < 3; i++) records.set(await insertSubject(database, tenantId), 'subject');
  const choice = randomUUID();
  await database.knex('choices').insert({ id: choice, tenant_id: tenantId, field: 'f', value: `v${choice.slice(0, 6)}`, created_at: 1, updated_at: 1 });
  records.set(choice, 'choice');
  return records;
}

async function changesPerRecord(fixture: LogFixture, tenantId: string): Promise<Map<string, number>> {
  const rows = (await fixture.database.knex('sync_changes').where({ tenant_id: tenantId }).select('record_id')) as Array<{ record_id: string }>;
  const out = new Map<string, number>();
  for (const { record_id } of rows) out.set(record_id, (out.get(record_id) ?? 0) + 1);
  return out;
}

t.test(`the backfill logs each record written before the log exactly once, then the tenant is done (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const { knex } = database;
  t.ok(await backfillDone(knex, tenantId), 'a tenant created with the log has nothing to backfill');
  // As a tenant of a database upgraded to the log: no state row yet, records never logged.
  await knex('sync_tenant_state').where({ tenant_id: tenantId }).delete();
  const records = await seed(fixture, tenantId);
  const logged = [...records].find(([, kind]) => kind === 'event')![0];
  await markInTransaction(store, tenantId, 'event', [logged]);
  t.notOk(await backfillDone(knex, tenantId));

  const backfill = new SyncBackfill({ store, clock: { now: () => NOW }, logger: createLogger('warn'), chunk: 3 });
  t.equal(await backfill.runOnce(), records.size - 1, 'every record not yet logged is marked');
  t.ok(await backfillDone(knex, tenantId));
  const counts = await changesPerRecord(fixture, tenantId);
  t.same([...records.keys()].map((id) => counts.get(id)), [...records.keys()].map(() => 1), 'one change per record, the one logged before included');
  t.equal(counts.size, records.size, 'nothing else');
  const { counted, stored } = await recount(database, tenantId);
  t.same(stored, counted);
  t.match(counted.join('\n'), /ev:all\/\d+ n=/);

  t.equal(await backfill.runOnce(), 0, 'a second pass finds nothing');
  t.equal((await changesPerRecord(fixture, tenantId)).size, records.size);
});

t.test(`a stale claim is taken over where it got to; a live one is left alone (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store } = fixture;
  const { knex } = database;
  const tenants: string[] = [];
  for (const name of ['stale', 'live']) {
    const id = randomUUID();
    await store.repos.tenants.insert({ id, name: `${name}-${id.slice(0, 6)}`, createdAt: 1 });
    tenants.push(id);
  }
  const [stale, live] = tenants as [string, string];
  const staleRecords = await seed(fixture, stale);
  await seed(fixture, live);
  // The dead process had done every kind before subjects.
  await knex('sync_tenant_state').where({ tenant_id: stale }).update({ backfill: 'running', claim_id: randomUUID(), claimed_at: NOW - BACKFILL_STALE_MS - 1, backfill_kind: 'subject', backfill_after: null });
  await knex('sync_tenant_state').where({ tenant_id: live }).update({ backfill: 'running', claim_id: randomUUID(), claimed_at: NOW - 1000 });

  const backfill = new SyncBackfill({ store, clock: { now: () => NOW }, logger: createLogger('warn'), chunk: 2 });
  const fromSubjects = [...staleRecords].filter(([, kind]) => kind === 'subject' || kind === 'choice').length;
  t.equal(await backfill.runOnce(), fromSubjects, 'resumed at subjects: events and patrols were the dead process\'s part');
  t.ok(await backfillDone(knex, stale));
  t.notOk(await backfillDone(knex, live), 'a claim renewed within the stale time is another process\'s');
  t.equal((await changesPerRecord(fixture, live)).size, 0);
});

t.test(`a claim taken over meanwhile stops its old holder at its next chunk (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  await database.knex('sync_tenant_state').where({ tenant_id: tenantId }).delete();
  await seed(fixture, tenantId);
  let transactions = 0;
  // Between this process's first and second chunk, another process takes the claim over.
  const paused: typeof store = {
    ...store,
    transaction: async (work) => {
      if (++transactions === 2) await database.knex('sync_tenant_state').where({ tenant_id: tenantId }).update({ claim_id: randomUUID() });
      return store.transaction(work);
    },
  };
  const backfill = new SyncBackfill({ store: paused, clock: { now: () => NOW }, logger: createLogger('warn'), chunk: 2 });
  t.equal(await backfill.runOnce(), 2, 'the first chunk only');
  t.equal((await changesPerRecord(fixture, tenantId)).size, 2);
  t.notOk(await backfillDone(database.knex, tenantId), 'not done by the process that lost its claim');
});
