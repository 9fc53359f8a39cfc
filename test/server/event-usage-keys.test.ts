/**
 * Issue 28, on both databases: keys PostgreSQL text cannot hold (U+0000, stored escaped), the
 * answer's budget (`fields_complete`, fields listed whole), the compat engine's reading of an
 * incomplete summary, and the ETag / If-None-Match of the usage routes.
 */
import t from 'tap';
import { backfill } from '../../migrations/server/20261130_0102_event_detail_usage.js';
import { checkCompatibility } from '../../schema/compat/index.js';
import { KnexEventUsageRepository } from '../../server/db/repositories/event-usage.js';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { type StoredEvent, V2, createEvent, expectedSummary, openType } from './event-usage-expected.js';

const ONE = '/api/v1.0/activity/event';

t.test(`keys with U+0000 (stored before keys were checked): backfill, update, delete (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await openType(s, token, 'usage-keys');
  const { knex } = s.server.runtime.database;
  const events = new Map<string, StoredEvent>();
  const plainId = await createEvent(s, token, 'usage-keys', { plain: 'p' });
  events.set(plainId, { type: 'usage-keys', details: { plain: 'p' } });
  const template = await knex('events').where({ id: plainId }).first();
  const odd = { 'a\u0000b': 1, '\u001bx': 'y', '"a\\u0000b"': true, plain: 'p' };
  for (const [i, id] of ['00000000-0000-4000-8000-00000000aa01', '00000000-0000-4000-8000-00000000aa02'].entries()) {
    await knex('events').insert({ ...template, id, serial_number: 9000 + i, event_details: JSON.stringify(odd) });
    events.set(id, { type: 'usage-keys', details: odd });
  }
  // As the migration does for events stored before it.
  await knex('event_detail_usage').delete();
  await backfill(knex);
  const check = async (label: string) => t.same((await s.json(`${V2}/usage-keys/usage`, { token })).body.data, expectedSummary('usage-keys', [...events.values()]), label);
  await check('backfilled: each key counted as itself');
  const [nulA, nulB] = [...events.keys()].slice(1);
  const patched = await s.json(`${ONE}/${nulA}`, send('PATCH', { title: 'only the title' }, token));
  t.equal(patched.status, 200, 'an event holding such a key can be updated');
  await check('a title change changes no count');
  const replaced = await s.json(`${ONE}/${nulA}`, send('PATCH', { event_details: { plain: 'q' } }, token));
  t.equal(replaced.status, 200, 'and its details replaced');
  events.set(nulA!, { type: 'usage-keys', details: { plain: 'q' } });
  await check('the odd keys taken away once');
  t.equal((await s.request(`${ONE}/${nulB}`, { method: 'DELETE', token })).status, 204, 'and deleted');
  events.delete(nulB!);
  await check('the odd keys gone');
  t.equal(Number((await knex('event_detail_usage').where('field', 'like', '\u001b%').count({ n: '*' }).first())?.n), 0, 'no escaped row left');
});

t.test(`one budget per answer: fields listed whole, fields_complete (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await openType(s, token, 'usage-budget');
  const stored: StoredEvent[] = [
    { type: 'usage-budget', details: { a: 'x', b: 'y', c: [1, 2, 3], d: 'z', e: {} } },
    { type: 'usage-budget', details: { a: 'x2', b: 'y' } },
  ];
  for (const { type, details } of stored) await createEvent(s, token, type, details);
  const full = expectedSummary('usage-budget', stored);
  const tenant = String((await s.server.runtime.database.knex('event_detail_usage').first('tenant_id'))?.tenant_id);
  const usage = new KnexEventUsageRepository(s.server.runtime.database.knex, dialect === 'postgres' ? 'postgres' : 'sqlite');
  const budget = { fields: 10, values: 5 };
  const [cut, next] = await usage.summaries(tenant, ['usage-budget', 'usage-budget'], budget);
  t.same(cut, { ...full, fields: { a: full.fields.a, b: full.fields.b }, fields_complete: false }, 'values run out at c (3 > 2 left): c and every field after it left out');
  t.same(next, { ...full, fields: { a: full.fields.a }, fields_complete: false }, 'the next summary lists what still fits (a, 2 values)');
  t.same(budget, { fields: 7, values: 0 }, 'one budget for both');
  const [few] = await usage.summaries(tenant, ['usage-budget'], { fields: 2, values: 100 });
  t.same(few, { ...full, fields: { a: full.fields.a, b: full.fields.b }, fields_complete: false }, 'at most `fields` fields');
  t.same((await s.json(`${V2}/usage?types=usage-budget`, { token })).body.data, [full], 'within the budget: complete');

  const schema = (required: string[]) => ({ json: { type: 'object', properties: { a: { type: 'string' }, q: { type: 'string' } }, required }, ui: {} });
  const findings = (summary: typeof full) => checkCompatibility({ before: schema([]), after: schema(['q']), beforeValue: 'usage-budget', afterValue: 'usage-budget', usage: summary }).findings.map((f) => f.rule);
  t.same(findings(full), ['breaking/required-added'], 'a complete summary: the events lack q');
  t.same(findings({ ...full, fields: { a: full.fields.a! }, fields_complete: false }), [], 'an incomplete one: no claim about a key it does not list');
});

t.test(`usage routes answer with an ETag and 304 (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await openType(s, token, 'usage-etag');
  await createEvent(s, token, 'usage-etag', { n: 1 });
  for (const url of [`${V2}/usage-etag/usage`, `${V2}/usage?types=usage-etag,other`]) {
    const first = await s.request(url, { token });
    const etag = first.headers.get('etag');
    t.match(etag, /^"[A-Za-z0-9_-]{27}"$/, `${url}: a strong ETag`);
    t.equal((await s.request(url, { token, headers: { 'If-None-Match': etag! } })).status, 304, 'unchanged: 304');
    t.equal((await s.request(url, { token })).headers.get('etag'), etag, 'the same answer, the same tag');
  }
  const before = (await s.request(`${V2}/usage-etag/usage`, { token })).headers.get('etag');
  await createEvent(s, token, 'usage-etag', { n: 2 });
  const after = await s.request(`${V2}/usage-etag/usage`, { token, headers: { 'If-None-Match': before! } });
  t.equal(after.status, 200, 'changed: 200');
  t.not(after.headers.get('etag'), before, 'with a new tag');
});
