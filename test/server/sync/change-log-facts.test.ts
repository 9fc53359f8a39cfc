import { randomUUID } from 'node:crypto';
import t from 'tap';
import { dialect } from '../../helpers/database.js';
import { insertEvent, insertGroup, insertPatrol, insertSubject, insertUser, keysOf, markInTransaction, openLogFixture, recount } from './change-log-support.js';

t.test(`the hook reads each kind's facts in the writing transaction and logs its keys (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId, userId } = fixture;
  const { knex } = database;
  await knex('event_types').insert({ id: randomUUID(), tenant_id: tenantId, value: 'fire', category: 'security', schema: '{}', created_at: 1, updated_at: 1 });
  await knex('event_types_v1').insert({ id: randomUUID(), tenant_id: tenantId, value: 'old', category: 'logistics', schema_text: '{}', created_at: 1, updated_at: 1 });
  const leader = await insertSubject(database, tenantId);
  const loner = await insertSubject(database, tenantId);
  const group = await insertGroup(database, tenantId, [leader]);
  const otherUser = await insertUser(database, tenantId);
  const patrol = await insertPatrol(database, tenantId, { by: userId, windowStart: Date.UTC(2026, 10, 3, 5), segments: [{ leaderType: 'observations.subject', leaderId: leader }, { leaderType: 'accounts.user', leaderId: otherUser }] });
  const done = await insertPatrol(database, tenantId, { state: 'done' });
  const event = await insertEvent(database, tenantId, { type: 'fire', lat: 1.5, lon: -0.5, by: userId });
  const v1Event = await insertEvent(database, tenantId, { type: 'old' });
  await knex('segment_events').insert({ tenant_id: tenantId, segment_id: patrol.segmentIds[0], event_id: event });
  const category = randomUUID();
  await knex('event_categories').insert({ id: category, tenant_id: tenantId, value: 'security', created_at: 1, updated_at: 1 });

  await store.transaction(async (repos) => {
    await repos.sync.markChanged(tenantId, 'event', [event, v1Event]);
    await repos.sync.markChanged(tenantId, 'patrol', [patrol.id, done.id]);
    await repos.sync.markChanged(tenantId, 'subject', [leader, loner]);
    await repos.sync.markChanged(tenantId, 'event_category', [category]);
  });
  t.same(await keysOf(database, tenantId, 'event', event), ['ev:all', `ev:by:${userId}`, 'ev:cat:security', 'ev:cell:1:-1', 'ev:day:2026-11-20', `ev:team:${group}`].sort());
  t.same(await keysOf(database, tenantId, 'event', v1Event), ['ev:all', 'ev:cat:logistics', 'ev:day:2026-11-20'], 'a v1 type\'s category');
  t.same(await keysOf(database, tenantId, 'patrol', patrol.id), ['pa:all', `pa:by:${otherUser}`, `pa:by:${userId}`, 'pa:day:2026-11-03', 'pa:open', `pa:team:${group}`].sort());
  t.same(await keysOf(database, tenantId, 'patrol', done.id), ['pa:all', 'pa:day:2026-11-01'], 'no window: the creation day; done: not open');
  t.same(await keysOf(database, tenantId, 'subject', leader), [`su:group:${group}`]);
  t.same(await keysOf(database, tenantId, 'subject', loner), ['su:nogroup']);
  t.same(await keysOf(database, tenantId, 'event_category', category), ['cat:event_categories']);

  // The patrol is done now and the event deleted: a put leaving pa:open, and a delete.
  await knex('patrols').where({ id: patrol.id }).update({ state: 'done' });
  await knex('segment_events').where({ event_id: event }).delete();
  await knex('events').where({ id: event }).delete();
  await markInTransaction(store, tenantId, 'patrol', [patrol.id]);
  await markInTransaction(store, tenantId, 'event', [event]);
  t.notOk((await keysOf(database, tenantId, 'patrol', patrol.id)).includes('pa:open'));
  t.same(await keysOf(database, tenantId, 'event', event), []);
  const last = await knex('sync_changes').where({ tenant_id: tenantId, record_id: event }).orderBy('position', 'desc').first();
  t.equal(last.op, 'delete');
  t.equal(last.scopes, '');
  t.match(last.old_scopes, /ev:cat:security/, 'the delete says where the record was');
  const { counted, stored } = await recount(database, tenantId);
  t.same(stored, counted);
});

t.test(`another tenant's record is not this tenant's: its mark logs a delete, and reads nothing across (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const other = randomUUID();
  await store.repos.tenants.insert({ id: other, name: `o-${other.slice(0, 8)}`, createdAt: 1 });
  const theirs = await insertEvent(database, other, {});
  await markInTransaction(store, tenantId, 'event', [theirs]);
  t.same(await keysOf(database, tenantId, 'event', theirs), []);
  t.equal((await database.knex('sync_changes').where({ tenant_id: tenantId, record_id: theirs }).first()).op, 'delete');
  t.same(await keysOf(database, other, 'event', theirs), [], 'nothing written for the other tenant');
  if (dialect === 'postgres') {
    await markInTransaction(store, tenantId, 'event', ['not-a-uuid']);
    t.equal((await database.knex('sync_changes').where({ tenant_id: tenantId, record_id: 'not-a-uuid' }).first()).op, 'delete', 'an id no uuid column holds is missing, not a driver error');
  }
});

t.test(`outside a transaction nothing can be marked (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  await t.rejects(fixture.store.repos.sync.markChanged(fixture.tenantId, 'event', [randomUUID()]), /outside a transaction/);
});

t.test(`a change that moves keys of other records logs those too, and only then (${dialect})`, async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const { knex } = database;
  const type = randomUUID();
  await knex('event_types').insert({ id: type, tenant_id: tenantId, value: 'snare', category: 'security', schema: '{}', created_at: 1, updated_at: 1 });
  const leader = await insertSubject(database, tenantId);
  const patrol = await insertPatrol(database, tenantId, { segments: [{ leaderType: 'observations.subject', leaderId: leader }] });
  const linked = await insertEvent(database, tenantId, { type: 'snare' });
  const unlinked = await insertEvent(database, tenantId, { type: 'snare' });
  await knex('segment_events').insert({ tenant_id: tenantId, segment_id: patrol.segmentIds[0], event_id: linked });
  await store.transaction(async (repos) => {
    await repos.sync.markChanged(tenantId, 'subject', [leader]);
    await repos.sync.markChanged(tenantId, 'patrol', [patrol.id]);
    await repos.sync.markChanged(tenantId, 'event', [linked, unlinked]);
  });
  const rowsOf = async (id: string) => Number((await knex('sync_changes').where({ tenant_id: tenantId, record_id: id }).count({ n: '*' }).first())!.n);

  await markInTransaction(store, tenantId, 'subject', [leader]);
  t.same([await rowsOf(patrol.id), await rowsOf(linked)], [1, 1], 'a subject write that moved no group logs only the subject');

  const group = await insertGroup(database, tenantId, [leader]);
  await markInTransaction(store, tenantId, 'subject', [leader]);
  t.ok((await keysOf(database, tenantId, 'patrol', patrol.id)).includes(`pa:team:${group}`), 'the patrol it leads is in the new team');
  t.ok((await keysOf(database, tenantId, 'event', linked)).includes(`ev:team:${group}`), 'so is the event linked to that patrol');
  t.equal(await rowsOf(unlinked), 1, 'an event not linked is left alone');

  await markInTransaction(store, tenantId, 'event_type', [type]);
  t.same([await rowsOf(linked), await rowsOf(unlinked)], [2, 1], 'a type write that kept its category moves no event');
  await knex('event_types').where({ id: type }).update({ category: 'wildlife' });
  await markInTransaction(store, tenantId, 'event_type', [type]);
  for (const id of [linked, unlinked]) {
    const keys = await keysOf(database, tenantId, 'event', id);
    t.ok(keys.includes('ev:cat:wildlife') && !keys.includes('ev:cat:security'), 'its events follow the type\'s new category');
  }
  const { counted, stored } = await recount(database, tenantId);
  t.same(stored, counted);
});
