/**
 * An event whose type has no v2 definition is categorised by its v1 type (server/db/sync/facts.ts):
 * changing that v1 type's category must re-log the event, so its `ev:cat:` key moves with it.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { insertEvent, keysOf, markInTransaction, openLogFixture } from './change-log-support.js';

t.test('a v1 type whose category changes re-logs the events it categorises', async (t) => {
  const fixture = await openLogFixture(t);
  if (!fixture) return;
  const { database, store, tenantId } = fixture;
  const { knex } = database;
  await knex('event_types_v1').insert({ id: randomUUID(), tenant_id: tenantId, value: 'old', category: 'logistics', schema_text: '{}', created_at: 1, updated_at: 1 });
  const event = await insertEvent(database, tenantId, { type: 'old' });
  await markInTransaction(store, tenantId, 'event', [event]);
  t.ok((await keysOf(database, tenantId, 'event', event)).includes('ev:cat:logistics'), 'before: the v1 category');
  const logged = async () => Number(((await knex('sync_changes').where({ tenant_id: tenantId, record_id: event }).count({ n: '*' }).first()) as { n: unknown }).n);

  await store.transaction(async (repos) => {
    const type = (await repos.eventTypesV1.find(tenantId, 'old'))!;
    await repos.eventTypesV1.update({ ...type, display: 'Old', updatedAt: 2 });
  });
  t.equal(await logged(), 1, 'an edit that keeps the category re-logs nothing');

  await store.transaction(async (repos) => {
    const type = (await repos.eventTypesV1.find(tenantId, 'old'))!;
    await repos.eventTypesV1.update({ ...type, category: 'wildlife', updatedAt: 3 });
  });
  const after = await keysOf(database, tenantId, 'event', event);
  t.ok(after.includes('ev:cat:wildlife'), `after: the new category (${after.join(' ')})`);
  t.notOk(after.includes('ev:cat:logistics'), 'after: not the old one');
  t.equal(await logged(), 2, 'the event was re-logged once');
});
