import { request as httpRequest } from 'node:http';
import t from 'tap';
import { MAX_DETAILS_ISSUES } from '../../schema/index.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { describeDelay, heldLoop, withLoopDelay } from '../helpers/loop-delay.js';

/**
 * Issue 13, items 1, 2 and 7 over real HTTP: event_details errors capped and cheap, patterns
 * matched in linear time (and refused at write when they cannot be), and choice validation that
 * depends on no request header. The server runs in this process, so the event-loop delay seen
 * here is the delay every other request would have seen.
 */
const E = '/api/v1.0/activity/events';
const TYPES = '/api/v2.0/activity/eventtypes';

/** A POST with a chosen `Host` header (fetch does not let a caller set it). */
function postWithHost(base: string, path: string, host: string, token: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = httpRequest({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
      headers: { Host: host, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function eventType(value: string, properties: Record<string, unknown>, fields: Record<string, unknown>) {
  return {
    value, display: value, default_priority: 100, default_state: 'active',
    schema: {
      json: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties },
      ui: { fields, sections: {}, order: [], headers: {} },
    },
  };
}

const choiceField = (field: string) => ({ type: 'CHOICE_LIST', inputType: 'DROPDOWN', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: [field] } });
const checkboxField = (field: string) => ({ type: 'CHOICE_LIST', inputType: 'CHECKBOX', choices: { type: 'EXISTING_CHOICE_LIST', existingChoiceList: [field] } });
const textField = { type: 'TEXT', inputType: 'SHORT_TEXT' };

t.test(`event_details and user schemas cannot hold the loop; validation depends on no header (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  for (const [value, display] of [['lion', 'Lion'], ['eland', 'Eland'], ['grazing', 'Grazing'], ['resting', 'Resting']]) {
    const field = value === 'grazing' || value === 'resting' ? 'behaviour' : 'species';
    t.equal((await s.json('/api/v2.0/choices', send('POST', { field, value, display }, token))).status, 201);
  }
  const created = (body: unknown) => s.json(TYPES, send('POST', body, token));

  await t.test('item 1: 1,500 wrong multi-choice values answer 400 with the first 100 issues and a count', async (t) => {
    t.equal((await created(eventType('herd', {
      behaviours: { type: 'array', title: 'Behaviours', items: { type: 'string', anyOf: [{ $ref: '/api/v2.0/schemas/choices.json?field=behaviour' }] } },
    }, { behaviours: checkboxField('behaviour') }))).status, 201);
    const body = { event_type: 'herd', event_details: { behaviours: Array.from({ length: 1500 }, (_, i) => `w${i}`) } };
    t.ok(JSON.stringify(body).length < 12_000, 'an 11 KB body, as in the review');
    const measured = await withLoopDelay(() => s.json(E, send('POST', body, token)));
    t.equal(measured.result.status, 400);
    const issues = measured.result.body.event_details as Array<{ code: string; pointer: string; message: string }>;
    t.equal(issues.length, MAX_DETAILS_ISSUES + 1);
    t.same(issues.slice(0, 2).map((i) => i.pointer), ['/behaviours/0', '/behaviours/1']);
    t.match(issues.at(-1), { code: 'issues_truncated', category: 'validation', message: /^1400 more problems not listed \(1500 in all/ });
    t.notOk(heldLoop(measured), `${describeDelay(measured)} (was 47 s)`);
    t.equal((await s.json(E, send('POST', { event_type: 'herd', event_details: { behaviours: ['grazing', 'resting'] } }, token))).status, 201, 'valid values still pass');
  });

  await t.test('item 2: a catastrophic pattern is matched in linear time; lookaround and backreferences are refused at write', async (t) => {
    t.equal((await created(eventType('coded', { code: { type: 'string', title: 'Code', pattern: '^(a+)+$' } }, { code: textField }))).status, 201);
    const measured = await withLoopDelay(() => s.json(E, send('POST', { event_type: 'coded', event_details: { code: `${'a'.repeat(31)}!` } }, token)));
    t.equal(measured.result.status, 400);
    t.match(measured.result.body.event_details, [{ pointer: '/code', message: /must match pattern/ }]);
    t.notOk(heldLoop(measured), `${describeDelay(measured)} (was 17 s)`);
    t.equal((await s.json(E, send('POST', { event_type: 'coded', event_details: { code: 'aaaa' } }, token))).status, 201);
    for (const pattern of ['^(?!admin)', '(a)\\1']) {
      const refused = await created(eventType('refused', { code: { type: 'string', title: 'Code', pattern } }, { code: textField }));
      t.equal(refused.status, 400, pattern);
      t.match(refused.body.schema, [{ code: 'schema_validation_error', pointer: '/json/properties/code/pattern', hints: [/RE2 in linear time/] }]);
    }
  });

  await t.test('a schema write with thousands of mistakes answers the first 100 and a count', async (t) => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) properties[`f${i}`] = { type: 'string', title: 'F', minLenght: 1 };
    const measured = await withLoopDelay(() => created(eventType('typos', properties, {})));
    t.equal(measured.result.status, 400);
    t.equal(measured.result.body.schema.length, MAX_DETAILS_ISSUES + 1);
    t.match(measured.result.body.schema.at(-1), { code: 'issues_truncated', message: /more problems not listed/ });
    t.notOk(heldLoop(measured), `${describeDelay(measured)}`);
  });

  await t.test('a stored pattern the linear-time engine refuses (written before the rule) is a 400, never a 500', async (t) => {
    t.equal((await created(eventType('legacy', { code: { type: 'string', title: 'Code', pattern: '^a' } }, { code: textField }))).status, 201);
    const { knex } = s.server.runtime.database;
    const row = await knex('event_types').where({ value: 'legacy' }).first();
    await knex('event_types').where({ id: row.id }).update({ schema: String(row.schema).replace('"^a"', '"^(?!admin)"') });
    const answer = await s.json(E, send('POST', { event_type: 'legacy', event_details: { code: 'x' } }, token));
    t.equal(answer.status, 400);
    t.match(answer.body.event_type, [{ code: 'schema_validation_error', hints: [/administrator must fix/] }]);
  });

  await t.test('item 7: choices are checked whatever the Host header and whatever host the reference names', async (t) => {
    // The reference carries the host of the request that wrote it (as v1 migration writes it).
    const own = `${s.url}/api/v2.0/schemas/choices.json?field=species`;
    t.equal((await created(eventType('sighted', { species: { type: 'string', title: 'Species', anyOf: [{ $ref: own }] } }, { species: choiceField('species') }))).status, 201);
    t.equal((await created(eventType('moved', {
      species: { type: 'string', title: 'Species', anyOf: [{ $ref: 'https://old-site.example/api/v2.0/schemas/choices.json?field=species' }] },
    }, { species: choiceField('species') }))).status, 201);
    t.equal((await created(eventType('ghostly', {
      species: { type: 'string', title: 'Species', anyOf: [{ $ref: 'https://old-site.example/api/v2.0/schemas/choices.json?field=ghost' }] },
    }, { species: choiceField('ghost') }))).status, 201);
    const ghost = await s.json(E, send('POST', { event_type: 'ghostly', event_details: { species: 'anything' } }, token));
    t.equal(ghost.status, 400, 'a list the tenant does not have accepts no value (validation is not switched off)');
    for (const type of ['sighted', 'moved']) {
      for (const host of [new URL(s.url).host, 'other.example', 'old-site.example', 'evil.example:8443']) {
        const bad = await postWithHost(s.url, E, host, token, { event_type: type, event_details: { species: 'dragon' } });
        t.equal(bad.status, 400, `${type}, Host ${host}: a value outside the list is refused`);
        t.match(bad.body.event_details, [{ pointer: '/species', code: 'event_details_invalid' }]);
        t.equal((await postWithHost(s.url, E, host, token, { event_type: type, event_details: { species: 'lion' } })).status, 201, `${type}, Host ${host}: a listed value passes`);
      }
    }
  });
});
