import t, { type Test } from 'tap';
import { io } from 'socket.io-client';
import { realtimeSession } from '../helpers/realtime-session.js';
import { dialect, startTestServer, type TestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const E = '/api/v1.0/activity/events';
const PASSWORD = 'Hornbill-Sky-Pass-1';

const session = (t: Test, s: TestServer, token: string, namespace = '/das') => realtimeSession(t, s.url, token, { namespace });

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

t.test(`realtime: socket.io pushes events to the sessions allowed to see them (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const { admin } = s.server.runtime;
  const adminToken = (await s.login()).access_token;
  await admin.createUser({ tenant: 'default', username: 'watcher', password: PASSWORD, permissions: ['view_event'] });
  await admin.createUser({ tenant: 'default', username: 'blind', password: PASSWORD, permissions: ['view_patrol'] });
  await admin.createTenant('other');
  await admin.createUser({ tenant: 'other', username: 'outsider', password: PASSWORD, superuser: true });
  t.equal((await s.json('/api/v2.0/activity/eventtypes', send('POST', { value: 'sighting', display: 'Sighting' }, adminToken))).status, 201);

  const watcher = await session(t, s, (await s.login('watcher', PASSWORD)).access_token);
  const blind = await session(t, s, (await s.login('blind', PASSWORD)).access_token);
  const outsider = await session(t, s, (await s.login('outsider', PASSWORD)).access_token);
  const plain = await session(t, s, (await s.login('watcher', PASSWORD)).access_token, '/');
  t.same([watcher.status, blind.status, outsider.status, plain.status], [200, 200, 200, 200], 'authorised by the access token, on /das and on /');
  const unknown = io(s.url + '/elsewhere', { path: '/socket.io', transports: ['polling'], reconnection: false });
  t.teardown(() => void unknown.close());
  const refused = await new Promise<Error>((resolve) => unknown.once('connect_error', resolve));
  t.equal(refused.message, 'Invalid namespace', 'another namespace is refused');

  const created = await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, adminToken));
  t.equal(created.status, 201, JSON.stringify(created.body));
  const patched = await s.json(`${E}/${created.body.id}`, send('PATCH', { title: 'Lions at the gate' }, adminToken));
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  await settle();
  const pushed = watcher.received.filter(([type]) => type === 'new_event' || type === 'update_event');
  t.same(pushed.map(([type, payload]) => [type, payload.mid, payload.event_id]), [['new_event', 1, created.body.id], ['update_event', 1, created.body.id]]);
  t.equal(pushed[1]![1].event_data.title, 'Lions at the gate', 'the changed event itself');
  t.same(plain.received.filter(([type]) => type.endsWith('_event')).map(([type]) => type), ['new_event', 'update_event'], 'the same on /');
  t.same(blind.received.filter(([type]) => type.endsWith('_event')), [], 'no view_event: nothing');
  t.same(outsider.received.filter(([type]) => type.endsWith('_event')), [], 'another tenant: nothing');

  const echo = new Promise<string>((resolve) => watcher.socket.once('echo_resp', () => resolve('echo_resp')));
  watcher.socket.emit('echo', { data: 'ping' });
  t.equal(await echo, 'echo_resp', 'the keep-alive echo');

  const bad = await session(t, s, 'not-a-token');
  t.equal(bad.status, 401, 'a bad token is refused');
  await settle();
  t.notOk(bad.socket.connected, 'and disconnected');

  // A token revoked after the session was authorised ends it: no more changes, socket closed.
  const revokedToken = (await s.login('watcher', PASSWORD)).access_token;
  const revoked = await session(t, s, revokedToken);
  t.equal(revoked.status, 200);
  const revoke = await s.request('/oauth2/revoke_token/', { method: 'POST', body: new URLSearchParams({ token: revokedToken, client_id: 'fieldops-cli' }) });
  t.equal(revoke.status, 200, 'revoked');
  t.equal((await s.json(E, send('POST', { event_type: 'sighting', event_details: {} }, adminToken))).status, 201);
  await settle();
  t.same(revoked.received.filter(([type]) => type.endsWith('_event')), [], 'a revoked token receives nothing');
  t.notOk(revoked.socket.connected, 'and its session is closed');
  t.equal(watcher.received.filter(([type]) => type === 'new_event').length, 2, 'a session whose token is valid still receives');
});
