import { randomUUID } from 'node:crypto';
import http from 'node:http';
import t from 'tap';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { E, changesOf, count, keyedJson, knexOf, newKey } from './idempotency-support.js';
import { PushAdmission } from '../../server/domain/push/admission.js';

const PUSH = '/api/fieldops/v1/sync/push';

type Entry = { key: string; op: string; id?: string; segment?: string; base?: unknown; after?: string[]; recorded_by?: string; body?: unknown };

function push(s: TestServer, token: string, entries: Entry[], headers: Record<string, string> = {}) {
  return s.json(PUSH, { method: 'POST', token, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ entries }) });
}

const sighting = (title: string, extra: Record<string, unknown> = {}) => ({ event_type: 'sighting', title, event_details: {}, ...extra });

async function userId(s: TestServer, username = 'admin'): Promise<string> {
  return String((await knexOf(s)('users').where({ username }).first()).id);
}

/** Sends the headers and half the body of a batch, and holds the rest until `finish()`. */
function heldBatch(s: TestServer, token: string): { finish(): Promise<number> } {
  const body = Buffer.from(JSON.stringify({ entries: [] }));
  const url = new URL(s.url + PUSH);
  let answered: Promise<number>;
  const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, Authorization: `Bearer ${token}` } });
  answered = new Promise((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
  });
  request.write(body.subarray(0, 5));
  return {
    finish() {
      request.end(body.subarray(5));
      return answered;
    },
  };
}

/** Sends empty batches until one is refused (the held batch is admitted by then): its answer. */
async function firstRefusal(s: TestServer, token: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const probe = await push(s, token, []);
    if (probe.status === 429) return probe;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('never refused');
}

t.test(`batched push: outcomes, dependencies, bases, replays, limits (${dialect})`, async (t) => {
  // No budget to speak of here (a loaded machine must not defer entries); the second server tests it.
  const s = await startTestServer(t, { env: { FIELDOPS_PUSH_BUDGET_MS: '600000' } });
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;
  const me = await userId(s);
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);

  await t.test('entries run in order, each with its own outcome; a refusal undoes nothing else', async (t) => {
    const [k1, k2, k3, k4, k5] = [newKey(), newKey(), newKey(), newKey(), newKey()];
    const id = randomUUID();
    const answer = await push(s, token, [
      { key: k1, op: 'event.create', recorded_by: me, body: sighting('Pushed one', { id }) },
      { key: k2, op: 'event.create', body: { event_type: 'no-such-type', event_details: {} } },
      { key: k3, op: 'event.update', id, base: { entry: k1 }, body: { state: 'active' } },
      { key: k4, op: 'event.note', id, after: [k1], body: { text: 'Tracks by the gate' } },
      { key: k5, op: 'event.update', id: randomUUID(), body: { state: 'active' } },
    ]);
    t.equal(answer.status, 200, JSON.stringify(answer.body));
    const outcomes = answer.body.outcomes;
    t.same(outcomes.map((o: any) => o.key), [k1, k2, k3, k4, k5], 'in order');
    t.match(outcomes[0], { status: 'applied', http_status: 201, kind: 'event', id, revision: 1, record: { id, title: 'Pushed one' } });
    t.match(outcomes[1], { status: 'rejected', http_status: 400, error: { code: String } });
    t.match(outcomes[2], { status: 'applied', http_status: 200, kind: 'event', id, record: { state: 'active' } });
    t.ok(outcomes[2].revision > 1, 'the update moved the revision');
    t.match(outcomes[3], { status: 'applied', http_status: 201, record: { text: 'Tracks by the gate' } });
    t.match(outcomes[4], { status: 'rejected', http_status: 404, error: { code: 'not_found' } });
    t.equal(await count(s, 'events', { id }), 1);
    t.match(await knexOf(s)('idempotency_keys').where({ key: k1 }).first(), { op: 'event.create', record_kind: 'event', record_id: id });
    t.equal(await count(s, 'idempotency_keys', { key: k2 }), 0, 'a refusal stores no key');
  });

  await t.test('after: a failed or unknown dependency is failed_dependency; an earlier stored key counts', async (t) => {
    const [bad, dependent, orphan] = [newKey(), newKey(), newKey()];
    const first = await push(s, token, [
      { key: bad, op: 'event.create', body: { event_type: 'no-such-type' } },
      { key: dependent, op: 'event.update', id: randomUUID(), after: [bad], body: { title: 'never' } },
      { key: orphan, op: 'event.update', id: randomUUID(), after: ['never-sent'], body: { title: 'never' } },
    ]);
    t.match(first.body.outcomes, [{ status: 'rejected' }, { status: 'failed_dependency', http_status: 424, error: { code: 'dependency_failed', field: 'after' } }, { status: 'failed_dependency' }]);
    const create = newKey();
    const id = randomUUID();
    t.equal((await push(s, token, [{ key: create, op: 'event.create', body: sighting('Earlier batch', { id }) }])).body.outcomes[0].status, 'applied');
    const later = await push(s, token, [{ key: newKey(), op: 'event.note', id, after: [create], body: { text: 'After an earlier batch' } }]);
    t.equal(later.body.outcomes[0].status, 'applied', JSON.stringify(later.body));
  });

  await t.test('bases: a revision, an entry of this batch or an earlier one; an unknown entry is base_entry_unknown', async (t) => {
    const create = newKey();
    const id = randomUUID();
    const first = await push(s, token, [
      { key: create, op: 'event.create', body: sighting('Chained', { id }) },
      { key: newKey(), op: 'event.update', id, base: { revision: 1 }, body: { priority: 200 } },
    ]);
    t.match(first.body.outcomes, [{ status: 'applied', revision: 1 }, { status: 'applied', http_status: 200 }]);
    const chained = await push(s, token, [{ key: newKey(), op: 'event.update', id, base: { entry: create }, body: { title: 'Chained again' } }]);
    // `merged` once the merge engine runs (the priority changed since the create), else `applied`.
    t.match(chained.body.outcomes[0], { status: /^(applied|merged)$/, record: { title: 'Chained again', priority: 200 } }, 'base from the stored key of an earlier batch');
    const unknown = await push(s, token, [{ key: newKey(), op: 'event.update', id, base: { entry: 'not-a-key' }, body: { title: 'x' } }]);
    t.match(unknown.body.outcomes[0], { status: 'failed_dependency', error: { code: 'base_entry_unknown', field: 'base' } });
  });

  await t.test('chained bases: no conflict with the laptop\'s own earlier entry; a real conflict is kept and chained', async (t) => {
    const id = (await s.json(E, send('POST', sighting('Before'), token))).body.id;
    t.equal((await s.json(`${E}/${id}`, send('PATCH', { title: 'Headquarters title' }, token))).status, 200);
    const [a, b, c, d] = [newKey(), newKey(), newKey(), newKey()];
    const answer = await push(s, token, [
      { key: a, op: 'event.update', id, base: { revision: 1 }, body: { state: 'active' } },
      { key: b, op: 'event.update', id, base: { entry: a }, body: { state: 'resolved' } },
      { key: c, op: 'event.update', id, base: { revision: 1 }, body: { title: 'Laptop title' } },
      { key: d, op: 'event.update', id, base: { entry: c }, body: { priority: 300 } },
    ]);
    const [first, second, third, fourth] = answer.body.outcomes;
    t.match(first, { status: 'merged', merged_fields: ['title'] }, 'the title changed since its base: merged');
    t.match(second, { status: 'applied', record: { state: 'resolved' } }, 'based on the first entry: no self-conflict');
    t.match(third, { status: 'conflict', conflicts: [{ field: 'title', mine: 'Laptop title', theirs: 'Headquarters title', status: 'open' }] });
    t.notOk(fourth.conflicts?.some((conflict: any) => conflict.field === 'title'), 'the lost title is not a conflict again');
    t.match(fourth, { status: /^(applied|merged)$/, record: { priority: 300, title: 'Headquarters title' } });
    t.equal(third.conflicts.length, 1);
    const resolve = { key: newKey(), op: 'conflict.resolve', id: third.conflicts[0].id, body: { choice: 'mine' } };
    const settled = await push(s, token, [resolve]);
    t.match(settled.body.outcomes[0], { status: 'applied', http_status: 200, kind: 'conflict', id: third.conflicts[0].id, record: { status: 'settled' } }, JSON.stringify(settled.body));
    t.equal((await s.json(`${E}/${id}`, { token })).body.title, 'Laptop title', 'mine was written');
    t.equal((await push(s, token, [resolve])).body.outcomes[0].status, 'replayed');
  });

  await t.test('a whole batch sent again after a lost answer: replayed, one write each', async (t) => {
    const id = randomUUID();
    const entries: Entry[] = [
      { key: newKey(), op: 'event.create', body: sighting('Lost answer', { id }) },
      { key: newKey(), op: 'event.update', id, body: { state: 'resolved' } },
      { key: newKey(), op: 'event.note', id, body: { text: 'Once' } },
    ];
    const first = await push(s, token, entries);
    t.same(first.body.outcomes.map((o: any) => o.status), ['applied', 'applied', 'applied']);
    const changes = await changesOf(s, 'event', id);
    const again = await push(s, token, entries);
    t.same(again.body.outcomes.map((o: any) => o.status), ['replayed', 'replayed', 'replayed']);
    t.match(again.body.outcomes[0], { kind: 'event', id, revision: first.body.outcomes[0].revision, http_status: 201 });
    t.equal(again.body.outcomes[1].revision, first.body.outcomes[1].revision, 'the stored revision');
    t.equal(await changesOf(s, 'event', id), changes, 'nothing written again');
    t.equal(await count(s, 'event_notes', { event_id: id }), 1);
    const reused = await push(s, token, [{ ...entries[1]!, body: { state: 'active' } }]);
    t.match(reused.body.outcomes[0], { status: 'rejected', http_status: 422, error: { code: 'idempotency_key_reused' } });
    const twice = await push(s, token, [entries[0]!, entries[0]!]);
    t.same(twice.body.outcomes.map((o: any) => o.status), ['replayed', 'replayed']);
    const single = await s.json(E, keyedJson('POST', sighting('Single route'), token, newKey()));
    t.equal(single.status, 201);
  });

  await t.test('a key stored by a single route replays in a batch, and a batch key replays on a single route', async (t) => {
    const key = newKey();
    const id = randomUUID();
    const batch = await push(s, token, [{ key, op: 'event.create', body: sighting('Batch then single', { id }) }]);
    t.equal(batch.body.outcomes[0].status, 'applied');
    const row = await knexOf(s)('idempotency_keys').where({ key }).first();
    t.equal(row.state, 'unstored', 'the outcome is stored; a single route re-reads the record');
  });

  await t.test('recorded_by another user: rejected 403, nothing stored under this user', async (t) => {
    await admin.createUser({ tenant: 'default', username: 'ranger.push', password: 'Acacia-Dusk-Passphrase-42', permissions: ['view_event', 'add_event', 'change_event'] });
    const other = await userId(s, 'ranger.push');
    const key = newKey();
    const answer = await push(s, token, [{ key, op: 'event.create', recorded_by: other, body: sighting('Not mine') }]);
    t.match(answer.body.outcomes[0], { status: 'rejected', http_status: 403, error: { code: 'recorded_by_other_user', field: 'recorded_by' } });
    t.equal(await count(s, 'events', { title: 'Not mine' }), 0);
  });

  await t.test('bulk creates: 250 in groups, an invalid one and a duplicate id rejected alone', async (t) => {
    const taken = randomUUID();
    t.equal((await s.json(E, send('POST', sighting('Taken', { id: taken }), token))).status, 201);
    const entries: Entry[] = Array.from({ length: 250 }, (_, index) => ({ key: newKey(), op: 'event.create', body: sighting(`Bulk ${index}`) }));
    entries[37] = { key: newKey(), op: 'event.create', body: { event_type: 'no-such-type' } };
    entries[160] = { key: newKey(), op: 'event.create', body: sighting('Duplicate', { id: taken }) };
    const answer = await push(s, token, entries);
    t.equal(answer.status, 200);
    const statuses = answer.body.outcomes.map((o: any) => o.status);
    t.equal(statuses.filter((status: string) => status === 'applied').length, 248);
    t.match(answer.body.outcomes[37], { status: 'rejected', http_status: 400 });
    t.match(answer.body.outcomes[160], { status: 'rejected', http_status: 409, error: { code: 'conflict' } });
    t.equal(await count(s, 'events', { title: 'Duplicate' }), 0);
    t.equal(await count(s, 'idempotency_keys', { key: entries[0]!.key }), 1);
    const row = await knexOf(s)('idempotency_keys').where({ key: entries[200]!.key }).first();
    t.equal(row.record_id, answer.body.outcomes[200].id, 'each key stored with its own record');
    const again = await push(s, token, entries);
    t.equal(again.body.outcomes.filter((o: any) => o.status === 'replayed').length, 248, 'replayed, not created again');
    t.equal(await count(s, 'events', { title: 'Bulk 5' }), 1);
  });

  await t.test('limits: 501 entries is 429 without Retry-After; a body over 4 MiB is 413', async (t) => {
    const many = Array.from({ length: 501 }, () => ({ key: newKey(), op: 'event.create', body: {} }));
    const tooMany = await push(s, token, many);
    t.equal(tooMany.status, 429);
    t.equal(tooMany.headers.get('retry-after'), null, 'no Retry-After: it can never fit');
    t.match(tooMany.body.entries[0], { code: 'push_batch_too_large', hints: [/500/] });
    const big = await push(s, token, [{ key: newKey(), op: 'event.note', id: randomUUID(), body: { text: 'x'.repeat(4 * 1024 * 1024) } }]);
    t.equal(big.status, 413);
  });

  await t.test('adversarial: 500 entries near 4 MiB, 255-character keys, deep bodies', async (t) => {
    const text = 'y'.repeat(8000);
    const full = Array.from({ length: 500 }, () => ({ key: newKey(), op: 'event.note', id: randomUUID(), body: { text } }));
    const answer = await push(s, token, full);
    t.equal(answer.status, 200);
    t.equal(answer.body.outcomes.length, 500);
    t.ok(answer.body.outcomes.every((o: any) => o.status === 'rejected' && o.http_status === 404), 'each its own 404');
    const long = 'k'.repeat(255);
    t.equal((await push(s, token, [{ key: long, op: 'event.create', body: sighting('Long key') }])).body.outcomes[0].status, 'applied');
    t.equal((await push(s, token, [{ key: 'k'.repeat(256), op: 'event.create', body: sighting('Too long') }])).status, 400);
    t.equal((await push(s, token, [{ key: 'has space', op: 'event.create', body: sighting('Space') }])).status, 400);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const deepBody = `{"entries": [{"key": "${newKey()}", "op": "event.create", "body": {"event_type": "sighting", "event_details": {"deep": ${deep}}}}, ${JSON.stringify({ key: newKey(), op: 'event.create', body: sighting('After deep') })}]}`;
    const nested = await s.json(PUSH, { method: 'POST', token, headers: { 'Content-Type': 'application/json' }, body: deepBody });
    t.equal(nested.status, 200);
    t.match(nested.body.outcomes, [{ status: 'rejected', http_status: 400, error: { code: 'too_deep' } }, { status: 'applied' }]);
    t.equal((await push(s, token, [{ key: newKey(), op: 'no.such' as string, body: {} }])).status, 400);
    t.equal((await s.json(PUSH, { method: 'POST', token, headers: { 'Content-Type': 'application/json' }, body: '{"entries": [' })).status, 400);
  });

  await t.test('a principal\'s second batch while its first runs: 429, Retry-After: 1', async (t) => {
    const held = heldBatch(s, token);
    const refused = await firstRefusal(s, token);
    t.equal(refused.headers.get('retry-after'), '1');
    t.match(refused.body.entries[0], { code: 'push_busy' });
    t.equal(await held.finish(), 200, 'the held batch finishes');
    t.equal((await push(s, token, [])).status, 200, 'then the next is admitted');
  });

  await t.test('the array form of POST events: all or nothing, 201 with an array', async (t) => {
    const created = await s.json(E, send('POST', [sighting('Array one'), sighting('Array two')], token));
    t.equal(created.status, 201, JSON.stringify(created.body));
    t.ok(Array.isArray(created.body));
    t.same(created.body.map((event: any) => event.title), ['Array one', 'Array two']);
    const refused = await s.json(E, send('POST', [sighting('Array three'), { event_type: 'no-such-type' }], token));
    t.equal(refused.status, 400);
    t.ok(Object.keys(refused.body).some((field) => field.startsWith('[1]')), JSON.stringify(refused.body));
    t.equal(await count(s, 'events', { title: 'Array three' }), 0, 'nothing of it written');
    const taken = created.body[0].id;
    t.equal((await s.json(E, send('POST', [sighting('Array four'), sighting('Dup', { id: taken })], token))).status, 409);
    t.equal(await count(s, 'events', { title: 'Array four' }), 0);
    const key = newKey();
    const keyed = await s.json(E, keyedJson('POST', [sighting('Keyed array')], token, key));
    const replay = await s.json(E, keyedJson('POST', [sighting('Keyed array')], token, key));
    t.equal(replay.status, 201);
    t.equal(replay.headers.get('idempotent-replayed'), 'true');
    t.same(replay.body, keyed.body);
    t.equal(await count(s, 'events', { title: 'Keyed array' }), 1);
    t.equal((await s.json(E, send('POST', [], token))).status, 400, 'an empty array');
  });
});

t.test(`batched push: server busy and a spent budget (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_PUSH_CONCURRENCY: '1', FIELDOPS_PUSH_BUDGET_MS: '0' } });
  if (!s) return;
  const { admin } = s.server.runtime;
  const token = (await s.login()).access_token;
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);

  await t.test('past the budget the rest are deferred (the first always runs)', async (t) => {
    const answer = await push(s, token, [
      { key: newKey(), op: 'event.create', body: sighting('Budget one') },
      { key: newKey(), op: 'event.update', id: randomUUID(), body: { title: 'x' } },
      { key: newKey(), op: 'event.create', body: sighting('Budget three') },
    ]);
    t.match(answer.body.outcomes, [{ status: 'applied' }, { status: 'deferred', http_status: 503, error: { code: 'push_budget_spent' } }, { status: 'deferred' }]);
    t.equal(await count(s, 'events', { title: 'Budget three' }), 0);
  });

  await t.test('more batches than the server runs: 429 with Retry-After from recent durations', async (t) => {
    await admin.createUser({ tenant: 'default', username: 'ranger.busy', password: 'Acacia-Dusk-Passphrase-42', permissions: ['view_event', 'add_event'] });
    const other = (await s.login('ranger.busy', 'Acacia-Dusk-Passphrase-42')).access_token;
    const held = heldBatch(s, token);
    const refused = await firstRefusal(s, other);
    const wait = Number(refused.headers.get('retry-after'));
    t.ok(wait >= 1 && wait <= 30, `Retry-After ${wait} within 1..30`);
    t.match(refused.body.entries[0], { code: 'push_busy' });
    t.equal(await held.finish(), 200);
  });
});

t.test('admission: the maximum, one batch per principal, Retry-After from the last 20 durations', async (t) => {
  let now = 0;
  const admission = new PushAdmission({ concurrency: 2 }, () => now);
  t.same(admission.checkSize(501), { reason: 'too_large', maxEntries: 500 });
  t.equal(admission.checkSize(500), null);
  const ran = (ms: number) => {
    const ticket = admission.enter('user:runner');
    if ('reason' in ticket) throw new Error('refused');
    now += ms;
    ticket.done();
  };
  t.equal(admission.retryAfterSeconds(), 1, 'before any batch ended');
  ran(2500);
  t.equal(admission.retryAfterSeconds(), 3, 'ceil(2.5 s)');
  ran(500);
  t.equal(admission.retryAfterSeconds(), 2, 'ceil(mean 1.5 s)');
  for (let i = 0; i < 20; i++) ran(100_000);
  t.equal(admission.retryAfterSeconds(), 30, 'at most 30');
  for (let i = 0; i < 20; i++) ran(10);
  t.equal(admission.retryAfterSeconds(), 1, 'only the last 20 count; at least 1');
  const first = admission.enter('user:a');
  t.same(admission.enter('user:a'), { reason: 'principal_busy', retryAfterSeconds: 1 });
  const second = admission.enter('user:b');
  t.match(admission.enter('user:c'), { reason: 'server_busy', retryAfterSeconds: 1 });
  for (const ticket of [first, second]) if (!('reason' in ticket)) ticket.done();
  t.notOk('reason' in admission.enter('user:c'), 'admitted once the others finished');
});
