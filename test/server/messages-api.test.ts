import t from 'tap';
import { ADMIN_PASSWORD, type TestServer, dialect, jsonBody, startTestServer } from '../helpers/server.js';
import { realtimeSession } from '../helpers/realtime-session.js';
import { GPS, application, observation, post, userToken } from './sensors-support.js';

type Json = Record<string, any>;

const MESSAGES = '/api/v1.0/messages';
const NONE = '00000000-0000-4000-8000-000000000000';

async function earthRangerToken(s: TestServer): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant: 'default', clientId: 'er_messages', grants: ['password'], profile: 'earthranger' });
  const response = await fetch(`${s.url}/oauth2/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'er_messages', username: 'admin', password: ADMIN_PASSWORD }) });
  return String(((await response.json()) as Json).access_token);
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

t.test(`messages: send, receive, list, read state, delete, realtime (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  t.equal((await post(s, GPS, observation('radio-7', 0, { subject_name: 'Amani' }), token)).status, 201);
  const amani = (await s.json('/api/v1.0/subjects?name=Amani', { token })).body.data[0] as Json;
  const source = (await s.server.runtime.database.knex('sensor_sources').where({ manufacturer_id: 'radio-7' }).first('id')).id as string;

  await t.test('the web app sends to a subject\'s messaging URL: an outbox message from the user', async (t) => {
    const live = await realtimeSession(t, s.url, token);
    t.equal(live.status, 200);
    // As the web app builds it (utils/messaging.js): the subject as `sender`, an outbox message, read.
    const body = { sender: amani, message_type: 'outbox', message_time: '2026-11-20T10:00:00.000Z', device_location: { latitude: -1.29, longitude: 36.82 }, text: 'Return to base', read: true };
    const sent = await s.json(`${MESSAGES}/?subject_id=${amani.id}&source_id=${source}`, jsonBody(body, { token }));
    t.equal(sent.status, 201);
    t.match(sent.body, {
      message_type: 'outbox', text: 'Return to base', status: 'pending', read: true, device: source, message_time: '2026-11-20T10:00:00.000+00:00',
      device_location: { latitude: -1.29, longitude: 36.82 },
      sender: { content_type: 'accounts.user', username: 'admin' },
      receiver: { content_type: 'observations.subject', id: amani.id, name: 'Amani' },
    });
    await until(() => live.received.some(([type]) => type === 'radio_message'), 'radio_message');
    const [, pushed] = live.received.find(([type]) => type === 'radio_message')!;
    t.match(pushed, { type: 'radio_message', mid: 1, message_id: sent.body.id, data: { id: sent.body.id, text: 'Return to base', receiver: { id: amani.id } } }, 'the app reads the message from `data`');
  });

  await t.test('an integration posts a device\'s message: inbox, found by manufacturer id, subject through the assignment', async (t) => {
    const app = await application(s, 'inreach', ['add_message']);
    const posted = await s.json(`${MESSAGES}?client_id=${app}&manufacturer_id=radio-7&provider_key=acme-collars`, jsonBody({ message_type: 'inbox', text: 'Poachers seen', message_time: '2026-11-20T10:05:00+00:00', additional: { raw: 'x' } }));
    t.equal(posted.status, 201, JSON.stringify(posted.body));
    t.match(posted.body, { message_type: 'inbox', status: 'received', read: false, device: source, sender: { content_type: 'observations.subject', id: amani.id }, receiver: null, additional: { raw: 'x' } });
    t.equal((await s.json(`${MESSAGES}?manufacturer_id=nope`, jsonBody({ text: 'x' }, { token }))).status, 400, 'an unknown device');
    t.equal((await s.json(MESSAGES, jsonBody({ text: 'to nobody' }, { token }))).status, 400, 'nobody named');
    t.equal((await s.json(MESSAGES, jsonBody({ text: '', receiver: { id: amani.id } }, { token }))).status, 400, 'an empty text');
    t.equal((await s.json(MESSAGES, jsonBody({ text: 'x'.repeat(4001), receiver: { id: amani.id } }, { token }))).status, 400, 'a text too long');
    t.equal((await s.json(MESSAGES, jsonBody({ text: 'x', receiver: { id: NONE } }, { token }))).status, 400, 'an unknown subject');
    t.equal((await s.json(MESSAGES, jsonBody({ text: 'x', receiver: { id: amani.id }, message_time: 'yesterday' }, { token }))).status, 400, 'a bad time');
  });

  await t.test('list: newest first, paginated, the filters the app sends', async (t) => {
    const all = await s.json(`${MESSAGES}?include_additional_data=false&page_size=25`, { token });
    t.equal(all.status, 200);
    t.match(all.body, { count: 2, next: null, previous: null });
    t.same(all.body.results.map((m: Json) => m.text), ['Poachers seen', 'Return to base']);
    t.notOk('additional' in all.body.results[0], 'include_additional_data=false leaves additional out');
    t.same((await s.json(`${MESSAGES}?read=false&subject_id=${amani.id}`, { token })).body.results.map((m: Json) => m.text), ['Poachers seen']);
    t.equal((await s.json(`${MESSAGES}?subject_id=${NONE}`, { token })).body.count, 0);
    t.equal((await s.json(`${MESSAGES}?subject_id=not-an-id`, { token })).body.count, 0);
    // The web app asks for the messages of every subject it shows, ids separated by commas.
    t.same((await s.json(`${MESSAGES}?read=false&subject_id=${NONE}%2C${amani.id}`, { token })).body.results.map((m: Json) => m.text), ['Poachers seen'], 'a comma-separated subject_id list');
    const many = Array.from({ length: 101 }, () => NONE).join(',');
    t.equal((await s.json(`${MESSAGES}?subject_id=${many}`, { token })).status, 400, 'more than 100 subjects in one filter: 400');
    const first = await s.json(`${MESSAGES}?page_size=1`, { token });
    t.equal(first.body.results.length, 1);
    const next = new URL(first.body.next);
    t.same((await s.json(next.pathname + next.search, { token })).body.results.map((m: Json) => m.text), ['Return to base'], 'next is the following page');
    t.equal((await s.json(`${MESSAGES}?read=maybe`, { token })).status, 400);
  });

  await t.test('read state: the app\'s bulk read, and one message', async (t) => {
    const unread = (await s.json(`${MESSAGES}?read=false`, { token })).body.results as Json[];
    const bulk = await s.json(`${MESSAGES}/`, jsonBody({ ids: [...unread.map((m) => m.id), NONE, 'junk'], bulk_read: true, read: true }, { token }));
    t.equal(bulk.status, 200);
    t.same(bulk.body, { ids: unread.map((m) => m.id), read: true });
    t.equal((await s.json(`${MESSAGES}?read=false`, { token })).body.count, 0);
    const one = await s.json(`${MESSAGES}/${unread[0]!.id}`, jsonBody({ read: false }, { token, method: 'PATCH' }));
    t.equal(one.status, 200);
    t.equal(one.body.read, false);
    t.equal((await s.json(`${MESSAGES}/${NONE}`, jsonBody({ read: true }, { token, method: 'PATCH' }))).status, 404);
  });

  await t.test('permissions: view, add, change, delete_message; the earthranger profile wraps', async (t) => {
    const viewer = await userToken(s, 'viewer', ['view_message']);
    t.equal((await s.json(MESSAGES, { token: viewer })).status, 200);
    t.equal((await s.json(MESSAGES, jsonBody({ text: 'x', receiver: { id: amani.id } }, { token: viewer }))).status, 403);
    t.equal((await s.json(MESSAGES, jsonBody({ ids: [], bulk_read: true, read: true }, { token: viewer }))).status, 403);
    const none = await userToken(s, 'nobody', []);
    t.equal((await s.json(MESSAGES, { token: none })).status, 403);
    const list = (await s.json(MESSAGES, { token: viewer })).body.results as Json[];
    t.equal((await s.request(`${MESSAGES}/${list[0]!.id}/`, { token: viewer, method: 'DELETE' })).status, 403);
    const er = await earthRangerToken(s);
    const wrapped = await s.json(MESSAGES, { token: er });
    t.match(wrapped.body, { status: { code: 200 }, data: { count: 2, results: [{ id: list[0]!.id }] } });
    // The Python client: delete_message('messages/<id>/').
    t.equal((await s.request(`${MESSAGES}/${list[0]!.id}/`, { token: er, method: 'DELETE' })).status, 200, 'the earthranger profile answers 200 for a 204');
    t.equal((await s.request(`${MESSAGES}/${list[0]!.id}/`, { token, method: 'DELETE' })).status, 404);
    t.equal((await s.json(MESSAGES, { token })).body.count, 1);
  });

  await t.test('another tenant neither sees nor changes the messages', async (t) => {
    const [kept] = (await s.json(MESSAGES, { token })).body.results as Json[];
    await s.server.runtime.admin.createTenant('south');
    await s.server.runtime.admin.createUser({ tenant: 'south', username: 'south.super', password: 'South-Super-Pass-1', superuser: true });
    const south = (await s.login('south.super', 'South-Super-Pass-1')).access_token;
    t.equal((await s.json(MESSAGES, { token: south })).body.count, 0);
    t.equal((await s.json(`${MESSAGES}/${kept!.id}`, { token: south })).status, 404);
    t.equal((await s.json(`${MESSAGES}/${kept!.id}`, jsonBody({ read: true }, { token: south, method: 'PATCH' }))).status, 404);
    t.same((await s.json(MESSAGES, jsonBody({ ids: [kept!.id], bulk_read: true, read: true }, { token: south }))).body, { ids: [], read: true });
    t.equal((await s.request(`${MESSAGES}/${kept!.id}`, { token: south, method: 'DELETE' })).status, 404);
    t.equal((await s.json(MESSAGES, jsonBody({ text: 'x', receiver: { id: amani.id } }, { token: south }))).status, 400, 'a subject of another tenant is unknown');
    t.match((await s.json(`${MESSAGES}/${kept!.id}`, { token })).body, { id: kept!.id, read: kept!.read });
  });

  await t.test('a session without view_message gets no radio_message', async (t) => {
    const blind = await realtimeSession(t, s.url, await userToken(s, 'blind', ['view_event']));
    const seeing = await realtimeSession(t, s.url, await userToken(s, 'seeing', ['view_message']));
    t.equal((await s.json(MESSAGES, jsonBody({ text: 'Check in', receiver: { id: amani.id } }, { token }))).status, 201);
    await until(() => seeing.received.some(([type]) => type === 'radio_message'), 'radio_message');
    t.notOk(blind.received.some(([type]) => type === 'radio_message'));
  });
});
