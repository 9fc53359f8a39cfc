import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ManualClock, dialect, jsonBody, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';
import { E, ONE, P, changesOf, count, forgetAnswer, keyedJson, keyedUpload, knexOf, newKey, replayed } from './idempotency-support.js';

const DAY = 86_400_000;

t.test(`Idempotency-Key on record writes: replays, reuse, principals, twins, lost answers, retention (${dialect})`, async (t) => {
  const clock = new ManualClock();
  const s = await startTestServer(t, { clock });
  if (!s) return;
  const { admin } = s.server.runtime;
  let token = (await s.login()).access_token;
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, token))).status, 201);

  await t.test('create: a replay answers the stored answer; one event, one change', async (t) => {
    const key = newKey();
    const body = { event_type: 'sighting', title: 'Once only', event_details: {} };
    const first = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(first.status, 201, JSON.stringify(first.body));
    t.notOk(replayed(first));
    const second = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(second.status, 201);
    t.ok(replayed(second), 'Idempotent-Replayed: true');
    t.same(second.body, first.body, 'the same body');
    t.equal(second.headers.get('etag'), first.headers.get('etag'));
    t.equal(second.headers.get('location'), first.headers.get('location'));
    t.equal(await count(s, 'events', { title: 'Once only' }), 1, 'written once');
    t.equal(await changesOf(s, 'event', first.body.id), 1, 'one change-log entry');
    const row = await knexOf(s)('idempotency_keys').where({ key }).first();
    t.match(row, { state: 'answered', record_kind: 'event', record_id: first.body.id, op: 'events.create' });
    t.equal(Number(row.expires_at) - Number(row.created_at), 30 * DAY, 'kept 30 days');
  });

  await t.test('update and state change: the retry with a stale If-Match is the stored answer, not a 412', async (t) => {
    const event = await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token));
    const before = await changesOf(s, 'event', event.body.id);
    const key = newKey();
    const patch = keyedJson('PATCH', { state: 'resolved', title: 'Resolved once' }, token, key, { 'If-Match': event.headers.get('etag')! });
    const first = await s.json(`${E}/${event.body.id}`, patch);
    t.equal(first.status, 200, JSON.stringify(first.body));
    const second = await s.json(`${E}/${event.body.id}`, patch);
    t.equal(second.status, 200, 'not 412');
    t.ok(replayed(second));
    t.same(second.body, first.body);
    t.equal(second.headers.get('etag'), first.headers.get('etag'));
    t.equal(await changesOf(s, 'event', event.body.id), before + 1, 'one write');
    t.equal((await s.json(`${E}/${event.body.id}`, send('PATCH', { title: 'Other' }, token, ))).status, 200, 'an unkeyed write still works');
  });

  await t.test('delete: the retry is the stored 204, not a 404', async (t) => {
    const event = await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token));
    const key = newKey();
    const first = await s.request(`${ONE}/${event.body.id}`, keyedJson('DELETE', undefined, token, key));
    t.equal(first.status, 204);
    const second = await s.request(`${ONE}/${event.body.id}`, keyedJson('DELETE', undefined, token, key));
    t.equal(second.status, 204);
    t.equal(second.headers.get('idempotent-replayed'), 'true');
  });

  await t.test('note and file: replays write once (the file hashed by its bytes, not its multipart framing)', async (t) => {
    const event = (await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, token))).body;
    const noteKey = newKey();
    const note = await s.json(`${ONE}/${event.id}/notes`, keyedJson('POST', { text: 'Tracks by the gate' }, token, noteKey));
    t.equal(note.status, 201, JSON.stringify(note.body));
    const again = await s.json(`${ONE}/${event.id}/notes`, keyedJson('POST', { text: 'Tracks by the gate' }, token, noteKey));
    t.ok(replayed(again));
    t.same(again.body, note.body);
    t.equal(await count(s, 'event_notes', { event_id: event.id }), 1, 'one note');

    const bytes = Buffer.from('%PDF-1.4 idempotent\n');
    const fileKey = newKey();
    const file = await s.json(`${ONE}/${event.id}/files/`, keyedUpload(bytes, 'report.pdf', { comment: 'Once' }, token, fileKey));
    t.equal(file.status, 201, JSON.stringify(file.body));
    const fileAgain = await s.json(`${ONE}/${event.id}/files/`, keyedUpload(bytes, 'report.pdf', { comment: 'Once' }, token, fileKey));
    t.equal(fileAgain.status, 201);
    t.ok(replayed(fileAgain));
    t.equal(fileAgain.body.id, file.body.id);
    t.equal(await count(s, 'event_files', { event_id: event.id }), 1, 'one file');
    const otherBytes = await s.json(`${ONE}/${event.id}/files/`, keyedUpload(Buffer.from('%PDF-1.4 other\n'), 'report.pdf', { comment: 'Once' }, token, fileKey));
    t.equal(otherBytes.status, 422, 'other bytes under the same key');
  });

  await t.test('a key reused for another request is 422 idempotency_key_reused; nothing written', async (t) => {
    const key = newKey();
    t.equal((await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'First use', event_details: {} }, token, key))).status, 201);
    const reused = await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'Second use', event_details: {} }, token, key));
    t.equal(reused.status, 422);
    t.equal(reused.body.idempotency_key[0].code, 'idempotency_key_reused');
    t.match(reused.body.status, { code: 422 });
    t.equal(await count(s, 'events', { title: 'Second use' }), 0);
    const event = (await s.json(E, { token })).body.results[0];
    t.equal((await s.json(`${E}/${event.id}`, keyedJson('PATCH', { title: 'x' }, token, key))).status, 422, 'another route under the same key');
  });

  await t.test('errors are not stored: a refused request sent again is evaluated again', async (t) => {
    const key = newKey();
    t.equal((await s.json(E, keyedJson('POST', { event_type: 'not-yet', event_details: {} }, token, key))).status, 400);
    t.equal(await count(s, 'idempotency_keys', { key }), 0);
    t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'not-yet', display: 'Not yet' }, token))).status, 201);
    t.equal((await s.json(E, keyedJson('POST', { event_type: 'not-yet', event_details: {} }, token, key))).status, 201, 'now accepted');
  });

  await t.test("another user's key is independent", async (t) => {
    await admin.createUser({ tenant: 'default', username: 'ranger.two', password: 'Acacia-Dusk-Passphrase-42', permissions: ['view_event', 'add_event', 'change_event'] });
    const other = (await s.login('ranger.two', 'Acacia-Dusk-Passphrase-42')).access_token;
    const key = newKey();
    const mine = await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'Mine', event_details: {} }, token, key));
    const theirs = await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'Theirs', event_details: {} }, other, key));
    t.equal(mine.status, 201);
    t.equal(theirs.status, 201, JSON.stringify(theirs.body));
    t.notOk(replayed(theirs));
    t.not(theirs.body.id, mine.body.id);
    t.equal(await count(s, 'idempotency_keys', { key }), 2);
  });

  await t.test('two identical requests at once: one write, equal answers', async (t) => {
    for (let round = 0; round < 4; round++) {
      const key = newKey();
      const body = { event_type: 'sighting', title: `Twin ${round}`, event_details: {} };
      const [a, b] = await Promise.all([s.json(E, keyedJson('POST', body, token, key)), s.json(E, keyedJson('POST', body, token, key))]);
      t.same([a.status, b.status], [201, 201], JSON.stringify([a.body, b.body]));
      t.same(a.body, b.body, 'equal bodies');
      t.equal(await count(s, 'events', { title: `Twin ${round}` }), 1, 'one event');
      const event = a.body;
      const patchKey = newKey();
      const patch = keyedJson('PATCH', { title: `Twin ${round} patched` }, token, patchKey, { 'If-Match': a.headers.get('etag')! });
      const before = await changesOf(s, 'event', event.id);
      const [c, d] = await Promise.all([s.json(`${E}/${event.id}`, patch), s.json(`${E}/${event.id}`, patch)]);
      t.same([c.status, d.status], [200, 200], 'never a 412 with itself');
      t.same(c.body, d.body);
      t.equal(await changesOf(s, 'event', event.id), before + 1, 'one write');
    }
  });

  await t.test('keyed patrol creates at once: each key holds its own patrol (no group commit shares a key)', async (t) => {
    const sent = Array.from({ length: 8 }, () => ({ key: newKey(), id: randomUUID() }));
    const answers = await Promise.all(sent.map(({ key, id }) => s.json(P, keyedJson('POST', { id, title: `Concurrent ${id}` }, token, key))));
    t.same(answers.map((a) => a.status), sent.map(() => 201));
    for (const { key, id } of sent) {
      const row = await knexOf(s)('idempotency_keys').where({ key }).first();
      t.match(row, { record_kind: 'patrol', record_id: id, state: 'answered' }, `the key of ${id} names it`);
    }
  });

  await t.test('an application whose client id is 100 characters: its keyed writes are stored like any other', async (t) => {
    // Its principal is `client:<client id>` (107 characters).
    const clientId = `c${'x'.repeat(99)}`;
    const secret = 'long-client-secret-0123456789';
    await admin.createClient({ tenant: 'default', clientId, secret, permissions: ['add_event', 'view_event'] });
    const basic = 'Basic ' + Buffer.from(`${clientId}:${secret}`).toString('base64');
    const keyed = (key: string) => ({ method: 'POST', headers: { Authorization: basic, 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: JSON.stringify({ event_type: 'sighting', title: 'Via a long client id', event_details: {} }) });
    const key = newKey();
    const created = await s.json(`${E}?client_id=${clientId}`, keyed(key));
    t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
    const again = await s.json(`${E}?client_id=${clientId}`, keyed(key));
    t.ok(replayed(again), 'replayed');
    t.match(await knexOf(s)('idempotency_keys').where({ key }).first(), { principal: `client:${clientId}` });
  });

  await t.test('committed but unanswered: the current representation, with the route success status', async (t) => {
    const key = newKey();
    const created = await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'Lost answer', event_details: {} }, token, key));
    await forgetAnswer(s, key);
    const again = await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'Lost answer', event_details: {} }, token, key));
    t.equal(again.status, 201);
    t.ok(replayed(again));
    t.same(again.body, (await s.json(`${E}/${created.body.id}`, { token })).body, 'the record as it is now');
    t.equal(await count(s, 'events', { title: 'Lost answer' }), 1);

    const patchKey = newKey();
    const patch = keyedJson('PATCH', { priority: 300 }, token, patchKey, { 'If-Match': created.headers.get('etag')! });
    t.equal((await s.json(`${E}/${created.body.id}`, patch)).status, 200);
    await forgetAnswer(s, patchKey);
    const patched = await s.json(`${E}/${created.body.id}`, patch);
    t.equal(patched.status, 200, 'not a 412');
    t.equal(patched.body.priority, 300);

    const deleteKey = newKey();
    t.equal((await s.request(`${ONE}/${created.body.id}`, keyedJson('DELETE', undefined, token, deleteKey))).status, 204);
    await forgetAnswer(s, deleteKey);
    t.equal((await s.request(`${ONE}/${created.body.id}`, keyedJson('DELETE', undefined, token, deleteKey))).status, 204);
  });

  await t.test('an answer over 256 KiB is not stored: its replay is the record re-read, still once', async (t) => {
    const key = newKey();
    const body = { event_type: 'sighting', title: 'A long report', event_details: { report: 'x'.repeat(300 * 1024) } };
    const first = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(first.status, 201, JSON.stringify(first.body).slice(0, 300));
    t.ok(JSON.stringify(first.body).length > 256 * 1024, 'the answer is over the cap');
    const row = await knexOf(s)('idempotency_keys').where({ key }).first();
    t.match(row, { state: 'unstored', response_body: null }, 'the key is kept, its answer is not');
    const again = await s.json(E, keyedJson('POST', body, token, key));
    t.equal(again.status, 201);
    t.ok(replayed(again));
    t.same(again.body, first.body, 'the same record, read back');
    t.equal(await count(s, 'events', { title: 'A long report' }), 1, 'written once');
  });

  await t.test('an invalid or oversize header is 400 in the contract body; a quoted key is accepted', async (t) => {
    for (const bad of ['x'.repeat(256), 'two words', 'cl\u00e9']) {
      const answer = await s.json(E, keyedJson('POST', { event_type: 'sighting', event_details: {} }, token, bad));
      t.equal(answer.status, 400, JSON.stringify(bad));
      t.equal(answer.body.idempotency_key[0].code, 'invalid');
      t.equal(answer.body.status.code, 400);
    }
    const empty = await s.json(E, { ...jsonBody({ event_type: 'sighting', event_details: {} }, { token }), headers: { 'Content-Type': 'application/json', 'Idempotency-Key': '' } });
    t.equal(empty.status, 400, 'empty');
    t.equal((await s.json(E, keyedJson('POST', { event_type: 'sighting', event_details: {} }, token, 'x'.repeat(255)))).status, 201, '255 characters');
    t.equal((await s.json(E, keyedJson('POST', { event_type: 'sighting', event_details: {} }, token, '"a quoted key"'))).status, 201);
  });

  await t.test('retention: the hourly sweep deletes keys past FIELDOPS_IDEMPOTENCY_DAYS', async (t) => {
    const key = newKey();
    t.equal((await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'Kept a month', event_details: {} }, token, key))).status, 201);
    const sweep = s.server.runtime.idempotencySweep;
    clock.advance(29 * DAY);
    t.equal(await sweep.sweepOnce(), 0, 'kept before its expiry');
    t.equal(await count(s, 'idempotency_keys', { key }), 1);
    clock.advance(2 * DAY);
    const total = await count(s, 'idempotency_keys');
    t.equal(await sweep.sweepOnce(), total, 'every key of this test is older than 30 days now');
    t.equal(await count(s, 'idempotency_keys'), 0);
    token = (await s.login()).access_token;
    t.equal((await s.json(E, keyedJson('POST', { event_type: 'sighting', title: 'Kept a month', event_details: {} }, token, key))).status, 201, 'a swept key is a new request');
  });
});
