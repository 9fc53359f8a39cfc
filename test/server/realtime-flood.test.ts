import t from 'tap';
import { io } from 'socket.io-client';
import { dialect } from '../helpers/database.js';
import { realtimeSession } from '../helpers/realtime-session.js';
import { PollingSession, SEPARATOR, jsonRequest, sio, startRealtimeServer, within } from '../helpers/realtime-server.js';

/**
 * Issue 24, finding 1: a realtime client cannot make the server queue without bound. The server
 * runs in its own process; what it holds is read from its /metrics (`fieldops_realtime_*`).
 */

/** A session's outgoing packets the server holds at most (server/http/realtime/guard.ts). */
const WRITE_BUFFER_BOUND = 256;
const E = '/api/v1.0/activity/events';

t.test(`realtime: an anonymous flood is not answered and not queued (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;

  // The review's client: joins /das, never authorises, never polls, and posts 16 KB bodies of
  // 1,000 `echo` events each, with an unsolicited pong to keep the session alive.
  const attacker = await PollingSession.open(s.url);
  t.equal((await attacker.post(sio.connect())).status, 200, 'joined /das');
  const body = ['3', ...Array.from({ length: 1000 }, () => sio.event('echo'))].join(SEPARATOR);
  t.ok(body.length > 15_000 && body.length <= 16 * 1024, `a body of ${body.length} bytes`);
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await attacker.post(body)).status);
  const scrape = await s.metrics();
  const queued = scrape.value('fieldops_realtime_queued_packets');
  t.ok(queued <= WRITE_BUFFER_BOUND, `the server holds ${queued} packets for it (the unfixed server held 19,980)`);
  t.ok(statuses.slice(1).every((status) => status !== 200), `the session is dropped at its first flood (posts answered ${statuses.join(' ')})`);
  t.ok(scrape.value('fieldops_realtime_dropped_total', { reason: 'message_rate' }) >= 1, 'counted as dropped for its message rate');
  t.ok(await s.alive(), 'the server is up');
});

t.test(`realtime: echo is answered only once the session is authorised (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;
  const socket = io(s.url + '/das', { path: '/socket.io', transports: ['polling'], reconnection: false });
  t.teardown(() => void socket.close());
  const received: string[] = [];
  socket.onAny((type: string) => received.push(type));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  // Messages are handled in order: an echo answered before authorization would arrive first.
  const answered = new Promise<{ status: { code: number } }>((resolve) => socket.once('resp_authorization', resolve));
  socket.emit('echo', { data: 'ping' });
  socket.emit('authorization', { type: 'authorization', id: 1, authorization: 'Bearer not-a-token' });
  t.equal((await answered).status.code, 401);
  t.same(received, ['resp_authorization'], 'no echo_resp to an unauthorised socket, only the authorization answer');

  const session = await realtimeSession(t, s.url, await s.login());
  t.equal(session.status, 200);
  const echo = new Promise((resolve) => session.socket.once('echo_resp', resolve));
  session.socket.emit('echo', { data: 'ping' });
  t.same(await echo, { data: 'pong' }, 'an authorised session gets its echo');
});

t.test(`realtime: a session that does not read, or floods while authorised, is dropped (${dialect})`, async (t) => {
  const s = await startRealtimeServer(t);
  if (!s) return;
  const token = await s.login();
  t.equal((await jsonRequest(`${s.url}/api/v2.0/activity/eventtypes`, 'POST', { value: 'sighting', display: 'Sighting' }, token)).status, 201);

  // Authorised over raw long-polling, then it never polls again while changes are pushed to it.
  const reader = await PollingSession.open(s.url);
  t.equal(await reader.authorize(token), 200, 'authorised');
  const sessions = await s.metrics();
  t.equal(sessions.value('fieldops_realtime_sessions', { state: 'authorized' }), 1);
  let created = 0;
  for (let i = 0; i < WRITE_BUFFER_BOUND + 44; i++) created += Number((await jsonRequest(s.url + E, 'POST', { event_type: 'sighting', event_details: {} }, token)).status === 201);
  t.equal(created, WRITE_BUFFER_BOUND + 44, 'events created');
  const after = await s.until((scrape) => scrape.value('fieldops_realtime_sessions', { state: 'authorized' }) === 0, 5000);
  t.ok(after.value('fieldops_realtime_queued_packets') <= WRITE_BUFFER_BOUND, `the server holds ${after.value('fieldops_realtime_queued_packets')} packets`);
  t.equal(after.value('fieldops_realtime_sessions', { state: 'authorized' }), 0, 'the session that does not read is dropped');
  t.ok(after.value('fieldops_realtime_dropped_total', { reason: 'write_buffer' }) >= 1, 'for its write buffer');
  t.equal((await reader.poll()).status, 400, 'its next poll finds no session');

  // An authorised session that sends a thousand messages at once (a WebSocket: one frame each).
  const flooder = await realtimeSession(t, s.url, token, { transports: ['websocket'] });
  t.equal(flooder.status, 200);
  const closed = new Promise<string>((resolve) => flooder.socket.once('disconnect', resolve));
  for (let i = 0; i < 1000; i++) flooder.socket.emit('echo', { data: i });
  const reason = await within(closed, 10_000, 'still connected after 10 s');
  t.not(reason, 'still connected after 10 s', `disconnected (${reason})`);
  t.ok(flooder.received.filter(([type]) => type === 'echo_resp').length < 1000, 'not every message was answered');
  t.ok(await s.alive(), 'the server is up');
});
