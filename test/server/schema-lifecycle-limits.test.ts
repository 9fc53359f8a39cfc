import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { sampleSchema, send } from '../helpers/catalog.js';
import { V2, detailOf, historyOf } from './schema-lifecycle-support.js';

// Issue 28 (review): drafts beyond the diff engine's limits are a 400, never a 500; a draft
// does not outlive its event type.

/** The sample schema with `count` more string fields (the engine compares at most 20,000). */
function bigSchema(count: number) {
  const base = sampleSchema('notes');
  const props: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) props[`f${i}`] = { type: 'string' };
  return { json: { ...base.json, properties: { ...base.json.properties, ...props } }, ui: base.ui };
}

t.test(`schema drafts and the diff limits; drafts go with their type (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const repos = s.server.runtime.store.repos;
  const tenantId = (await repos.tenants.findByName('default'))!.id;
  t.equal((await s.json(V2, send('POST', { value: 'big', display: 'Big', schema: sampleSchema('notes') }, token))).status, 201);
  const id = (await detailOf(s, token, 'big')).body.id as string;

  await t.test('PUT draft refuses a draft publish could not compare: 400 schema_diff_limit with a pointer', async (t) => {
    const put = await s.json(`${V2}/big/draft`, send('PUT', { schema: bigSchema(21000) }, token));
    t.equal(put.status, 400, JSON.stringify(put.body).slice(0, 300));
    t.match(put.body.schema[0], { code: 'schema_diff_limit', pointer: /^\/json/, message: /more than 20000 fields/ });
    t.ok(put.body.schema[0].hints.length > 0, 'with a hint');
    t.equal((await s.json(`${V2}/big/draft`, { token })).status, 404, 'nothing stored');
  });

  await t.test('publish of such a draft (stored before the check) is a 400, not a 500', async (t) => {
    await repos.catalogDrafts.put({
      tenantId, catalog: 'eventtypes', itemId: id, schema: JSON.stringify(bigSchema(21000)), basedOnSequence: 1,
      updatedAt: Date.now(), updatedByUserId: null, updatedByUsername: null,
    });
    const published = await s.json(`${V2}/big/publish`, send('POST', {}, token));
    t.equal(published.status, 400, JSON.stringify(published.body).slice(0, 300));
    t.match(published.body.schema[0], { code: 'schema_diff_limit', pointer: /^\/json/ });
    t.match(published.body.status, { code: 400 });
    t.equal((await historyOf(s, token, 'big')).count, 1, 'nothing written');
  });

  await t.test('deleting the event type deletes its draft in the same write', async (t) => {
    t.equal((await s.json(`${V2}/big/draft`, send('PUT', { schema: sampleSchema('extra') }, token))).status, 200);
    t.ok(await repos.catalogDrafts.get(tenantId, 'eventtypes', id), 'stored');
    t.equal((await s.request(`${V2}/big`, { method: 'DELETE', token })).status, 204);
    t.equal(await repos.catalogDrafts.get(tenantId, 'eventtypes', id), null, 'gone with the type');
  });
});
