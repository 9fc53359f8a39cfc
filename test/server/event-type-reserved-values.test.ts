/**
 * Issue 28, on both databases: `usage`, `schemas` and `migrate` are literal routes beside
 * `/api/v2.0/activity/eventtypes/:key`, so a v2 type may not take one as its value (the router
 * matches case-insensitively): not on create, not by a value change, not by the v1 → v2
 * migration. A type that already holds one keeps working.
 */
import t, { type Test } from 'tap';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';

const V2 = '/api/v2.0/activity/eventtypes';
const V1 = '/api/v1.0/activity/events/eventtypes';

type Json = Record<string, any>;

function assertReserved(t: Test, response: { status: number; body: Json }, what: string): void {
  t.equal(response.status, 400, `${what}: ${JSON.stringify(response.body).slice(0, 300)}`);
  t.equal(response.body.value?.[0]?.code, 'reserved', `${what}: code reserved on value`);
  t.ok(response.body.value?.[0]?.hints.some((hint: string) => /choose another value/i.test(hint)), `${what}: hint`);
}

t.test(`reserved v2 event type values (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;

  await t.test('create refuses each reserved value, in any case', async (t) => {
    for (const value of ['usage', 'schemas', 'migrate', 'Usage', 'MIGRATE']) {
      assertReserved(t, await s.json(V2, send('POST', { value, display: value }, token)), `create ${value}`);
    }
    const list = await s.json(V2, { token });
    t.equal(list.status, 200);
    t.notOk(JSON.stringify(list.body).includes('"value":"usage"'), 'nothing saved');
    t.equal((await s.json(V2, send('POST', { value: 'usage_report', display: 'Usage report' }, token))).status, 201, 'a value that only starts with one is fine');
  });

  await t.test('a value change to a reserved value is refused (PATCH and PUT); other changes pass', async (t) => {
    const created = await s.json(V2, send('POST', { value: 'sighting', display: 'Sighting' }, token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    assertReserved(t, await s.json(`${V2}/sighting`, send('PATCH', { value: 'schemas' }, token)), 'patch value');
    assertReserved(t, await s.json(`${V2}/sighting`, send('PUT', { value: 'Migrate', display: 'Sighting' }, token)), 'put value');
    t.equal((await s.json(`${V2}/sighting`, { token })).body.value, 'sighting', 'unchanged');
    t.equal((await s.json(`${V2}/sighting`, send('PATCH', { display: 'Sighting 2' }, token))).status, 200);
  });

  await t.test('a type that already holds a reserved value (from before the rule) can still be changed by id', async (t) => {
    const created = await s.json(V2, send('POST', { value: 'legacy_kind', display: 'Legacy' }, token));
    t.equal(created.status, 201);
    const { store } = s.server.runtime;
    const tenant = (await store.repos.tenants.findByName('default'))!;
    const row = (await store.repos.eventTypes.find(tenant.id, created.body.id))!;
    t.ok(row, 'stored row');
    await store.transaction((repos) => repos.eventTypes.update({ ...row, value: 'usage' }));
    const patched = await s.json(`${V2}/${created.body.id}`, send('PATCH', { display: 'Legacy renamed' }, token));
    t.equal(patched.status, 200, JSON.stringify(patched.body).slice(0, 300));
    t.equal(patched.body.value, 'usage');
    const moved = await s.json(`${V2}/${created.body.id}`, send('PATCH', { value: 'legacy_usage' }, token));
    t.equal(moved.status, 200, 'and moved off it');
  });

  await t.test('migrating a v1 type named migrate is a clear 400; nothing is applied', async (t) => {
    const schema = JSON.stringify({ schema: { $schema: 'http://json-schema.org/draft-04/schema#', title: 'Usage', type: 'object', properties: { note: { type: 'string', title: 'Note' } } }, definition: ['note'] });
    const v1 = await s.json(V1, send('POST', { value: 'migrate', display: 'Old migrate', schema }, token));
    t.equal(v1.status, 201, `a v1 type may keep the value (its routes differ): ${JSON.stringify(v1.body).slice(0, 200)}`);
    const run = await s.json(`${V2}/migrate`, send('POST', { event_types: ['migrate'], dry_run: false }, token));
    assertReserved(t, run, 'migration');
    t.notOk((await s.json(`${V1}/migrate`, { token })).body.migrated_to, 'the v1 type is not marked migrated');
    const list = await s.json(`${V2}?include_inactive=true`, { token });
    t.notOk(JSON.stringify(list.body).includes('Old migrate'), 'no v2 type created');
  });
});
