/**
 * Issue 28, on both databases: usage summaries kept incrementally by every event write through
 * the HTTP API match a from-scratch summary of the same events; routes, permissions, tenancy.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { type StoredEvent, V2, createEvent, expectedSummary, openType } from './event-usage-expected.js';

const ONE = '/api/v1.0/activity/event';

t.test(`usage summaries follow creates, updates and deletes (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  const openId = await openType(s, token, 'usage-open');
  await openType(s, token, 'usage-other');
  const events = new Map<string, StoredEvent>();
  const check = async (label: string) => {
    for (const type of ['usage-open', 'usage-other']) {
      const got = await s.json(`${V2}/${type}/usage`, { token });
      t.equal(got.status, 200, `${label}: ${type} 200`);
      t.same(got.body.data, expectedSummary(type, [...events.values()]), `${label}: ${type} as counted from scratch`);
    }
    const batch = await s.json(`${V2}/usage?types=usage-other,usage-open,usage-other`, { token });
    t.same(batch.body.data, [expectedSummary('usage-other', [...events.values()]), expectedSummary('usage-open', [...events.values()])], `${label}: the batch, in order, once each`);
  };
  const add = async (type: string, details: Record<string, unknown>) => events.set(await createEvent(s, token, type, details), { type, details });

  await check('no events');
  const long = 'x'.repeat(201);
  await add('usage-open', { species: 'lion', count: 3, seen: true, tags: ['a', 'b', 'a', 7, null, { x: 1 }], ratio: 0.5, note: null, extra: { deep: 1 } });
  await add('usage-open', { species: 'lion', count: 7, seen: false, tags: ['b'], ratio: -2, note: 'y'.repeat(200) });
  await add('usage-open', { species: 'eland', count: 3.25, tags: [], note: long, '': 'empty key' });
  await add('usage-other', { species: 'lion' });
  await check('after creates');
  const summary = (await s.json(`${V2}/${openId}/usage`, { token })).body.data;
  t.equal(summary.event_type, 'usage-open', 'the key resolves by id too; the summary is for the value');
  t.same(summary.fields.note, { events: 3, kinds: { null: 1, string: 2 }, values: [{ value: 'y'.repeat(200), events: 1 }], values_complete: false, min_length: 200, max_length: 201 }, 'a 201-char string is counted, not listed');
  t.same(summary.fields.tags.values, [{ value: 'b', events: 2 }, { value: 'a', events: 1 }, { value: 7, events: 1 }], 'array elements once per event');
  t.match(summary.fields.count, { min: 3, max: 7, kinds: { integer: 2, number: 1 } });

  const [first, second, third] = [...events.keys()];
  const patch = async (id: string, body: Record<string, unknown>) => {
    const patched = await s.json(`${ONE}/${id}`, send('PATCH', body, token));
    t.equal(patched.status, 200, `patch ${JSON.stringify(body).slice(0, 60)}`);
    events.set(id, { type: patched.body.event_type, details: patched.body.event_details });
  };
  await patch(first!, { event_details: { ...events.get(first!)!.details, species: 'zebra' } });
  await check('a value changed');
  await patch(second!, { event_type: 'usage-other' });
  await check('the event type changed');
  const { ratio: _ratio, ...rest } = events.get(first!)!.details;
  await patch(first!, { event_details: rest });
  await check('a key removed');
  await patch(first!, { title: 'only the title' });
  await check('an update of no detail');
  t.equal((await s.request(`${ONE}/${third}`, { method: 'DELETE', token })).status, 204);
  events.delete(third!);
  await check('a delete');
  for (const id of [...events.keys()]) {
    t.equal((await s.request(`${ONE}/${id}`, { method: 'DELETE', token })).status, 204);
    events.delete(id);
  }
  await check('every event deleted');
  const { knex } = s.server.runtime.database;
  t.equal(Number((await knex('event_detail_usage').count({ n: '*' }).first())?.n), 0, 'rows reaching 0 are removed');
});

t.test(`usage routes: input, permissions, tenancy (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await openType(s, token, 'usage-open');
  await createEvent(s, token, 'usage-open', { species: 'lion' });
  t.equal((await s.json(`${V2}/nope/usage`, { token })).status, 404, 'an unknown type');
  t.equal((await s.json(`${V2}/usage`, { token })).status, 400, 'types is required');
  t.equal((await s.json(`${V2}/usage?types=a,,b`, { token })).status, 400, 'an empty value');
  t.equal((await s.json(`${V2}/usage?types=${'a'.repeat(101)}`, { token })).status, 400, 'a value over 100 characters');
  const many = Array.from({ length: 201 }, (_, i) => `t${i}`).join(',');
  const tooMany = await s.json(`${V2}/usage?types=${many}`, { token });
  t.equal(tooMany.status, 400, 'over 200 values');
  t.match(tooMany.body, { types: [{ code: 'too_many' }], status: { code: 400 } }, 'the contract error body');
  t.equal((await s.json(`${V2}/usage?types=${Array.from({ length: 200 }, (_, i) => `t${i}`).join(',')}`, { token })).body.data.length, 200, '200 values are fine');
  t.same((await s.json(`${V2}/usage?types=v1-or-none`, { token })).body.data, [{ event_type: 'v1-or-none', events: 0, fields: {}, fields_complete: true }], 'a value no type has: an empty summary');

  const { admin } = s.server.runtime;
  for (const [name, permissions] of [['only.types', ['view_eventtype']], ['only.events', ['view_event']], ['both.perms', ['view_eventtype', 'view_event']]] as const) {
    await admin.createUser({ tenant: 'default', username: name, password: 'Usage-Pass-Word-9', permissions: [...permissions] });
    const user = (await s.login(name, 'Usage-Pass-Word-9')).access_token;
    const expected = name === 'both.perms' ? 200 : 403;
    t.equal((await s.json(`${V2}/usage-open/usage`, { token: user })).status, expected, `${name}: one`);
    t.equal((await s.json(`${V2}/usage?types=usage-open`, { token: user })).status, expected, `${name}: batch`);
  }

  await admin.createTenant('usage-b');
  await admin.createUser({ tenant: 'usage-b', username: 'usage.b', password: 'Usage-Pass-Word-9', superuser: true });
  const other = (await s.login('usage.b', 'Usage-Pass-Word-9')).access_token;
  t.equal((await s.json(`${V2}/usage-open/usage`, { token: other })).status, 404, "another tenant's type is unknown");
  await openType(s, other, 'usage-open');
  await createEvent(s, other, 'usage-open', { colour: 'red' });
  await createEvent(s, other, 'usage-open', { colour: 'red' });
  t.same((await s.json(`${V2}/usage-open/usage`, { token: other })).body.data, expectedSummary('usage-open', [{ type: 'usage-open', details: { colour: 'red' } }, { type: 'usage-open', details: { colour: 'red' } }]), 'tenant B counts its own');
  t.same((await s.json(`${V2}/usage?types=usage-open`, { token })).body.data, [expectedSummary('usage-open', [{ type: 'usage-open', details: { species: 'lion' } }])], 'tenant A unchanged');
});
